import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);

// engine/ports/forge.ts
var MergeRefused = class extends Error {
  constructor(message, conflict) {
    super(message);
    this.conflict = conflict;
    this.name = "MergeRefused";
  }
  conflict;
};
var ReviewRefused = class extends Error {
  constructor(message, reason) {
    super(message);
    this.reason = reason;
    this.name = "ReviewRefused";
  }
  reason;
};
function splitRepo(repo) {
  const [owner, name] = repo.split("/");
  if (!owner || !name) throw new Error(`repository "${repo}" is not "owner/name"`);
  return { owner, name };
}

export {
  MergeRefused,
  ReviewRefused,
  splitRepo
};
//# sourceMappingURL=chunk-S6CAQBKA.js.map
