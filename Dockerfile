# syntax=docker/dockerfile:1
# The Conveyor GitHub App (`conveyor serve`) in a container, with the whole command line beside it
# (`conveyor` is on PATH). It runs from its TypeScript sources through tsx, as `npm start` does:
# nothing is compiled, so the image is the sources, the bundled action the embedded mode runs, and
# the production dependencies. See docs/github-app.md ("Running it in a container") and
# examples/compose.yml (the app with PostgreSQL). test/container checks this file without Docker:
# it assembles /app from the COPY lines below and .dockerignore, and runs the command line and
# `conveyor serve` in it.
#
#   docker build -t conveyor .
#   docker run -p 127.0.0.1:3000:3000 -e APP_ID=... -e PRIVATE_KEY="$(cat app.pem)" -e WEBHOOK_SECRET=... \
#     -e CONVEYOR_PUBLIC_URL=https://conveyor.example.com -v conveyor-data:/var/lib/conveyor conveyor
#   docker run --rm conveyor conveyor --help

# The current Node.js LTS (20 reached its end of life in April 2026). better-sqlite3 12 supports it;
# both stages use the same base, so the native module built in the first runs in the second.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 builds its native module from source where no prebuilt one fits (or none can be
# downloaded): python3, make and g++, in this stage only.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# The production dependencies only (tsx among them: it runs the sources), exactly as locked.
RUN npm ci --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
# git: the command line's embedded mode (`conveyor run`, `conveyor demo`) works on git repositories.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/*
# JSON log lines (NODE_ENV=production), every interface (a container's port is published from
# outside it), the port below, and the SQLite file in the volume unless CONVEYOR_DATABASE_URL
# names a PostgreSQL database.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    CONVEYOR_DATABASE_URL=sqlite:/var/lib/conveyor/app.db
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY package.json tsconfig.json app.yml ./
COPY bin ./bin
COPY app ./app
COPY cli ./cli
COPY adapters ./adapters
COPY engine ./engine
COPY lib ./lib
COPY core ./core
# What the command line reads at run time: the action it runs each step with in the embedded mode,
# the demo organisation and the starter configuration, the workflow `conveyor init` writes.
COPY action/dist ./action/dist
COPY examples ./examples
COPY workflows ./workflows
RUN ln -s /app/bin/conveyor.js /usr/local/bin/conveyor \
 && mkdir -p /var/lib/conveyor && chown node:node /var/lib/conveyor
VOLUME /var/lib/conveyor
# The node image's unprivileged user: the app needs no root, and its files are not its to change.
USER node
EXPOSE 3000
# Liveness: /healthz answers while the process serves (readiness, /readyz, is the load balancer's).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "bin/conveyor.js", "serve"]
