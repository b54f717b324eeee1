// The GitHub App's private key, read once, checked as GitHub will use it, and handed to Probot.
// Probot's own reader (@probot/get-private-key) only looks for the PEM armour lines: a key cut
// short, a public key or anything else between those lines passes it, and the app then starts,
// answers /healthz and fails on its first call to GitHub. Here the key must parse (node:crypto),
// be RSA and sign an RS256 JWT's worth of bytes, or `conveyor serve` does not start.
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

/** A PEM file is a few kilobytes: anything much larger was named by mistake, and is not read whole. */
const MAX_KEY_FILE_BYTES = 64 * 1024;

export type PrivateKeyReading =
  | { ok: true; pem: string; key: KeyObject; source: string }
  /** `source` is where the key came from (`PRIVATE_KEY`, `PRIVATE_KEY_PATH (/etc/app.pem)`), undefined when neither is set. */
  | { ok: false; source?: string; problem: string };

/** The PEM text as Probot reads PRIVATE_KEY: base64 of the PEM, newlines written as `\n`, or a PEM on one line. */
function normalised(value: string): string {
  let text = value.trim();
  if (/^[A-Za-z0-9+/=\s]+$/.test(text) && !text.includes('-----')) {
    const decoded = Buffer.from(text, 'base64').toString('utf8');
    if (decoded.includes('-----BEGIN')) text = decoded.trim();
  }
  if (text.includes('\\n')) text = text.replace(/\\n/g, '\n');
  // One line, as a form field or a secret store may keep it: put the armour on lines of their own.
  if (!text.includes('\n')) text = text.replace(/(-----BEGIN [A-Z0-9 ]+-----)\s*/, '$1\n').replace(/\s*(-----END [A-Z0-9 ]+-----)/, '\n$1');
  return `${text}\n`;
}

/** What is wrong with a PEM text as a GitHub App's key, or the key. Never quotes the text: it is a secret. */
function checked(pem: string): { key: KeyObject } | { problem: string } {
  const begin = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(pem);
  if (!begin)
    return {
      problem: "holds no PEM private key (no -----BEGIN … PRIVATE KEY----- line); give the .pem file generated on the app's settings page, or its text",
    };
  const label = begin[1]!;
  if (/PUBLIC KEY|CERTIFICATE/.test(label))
    return {
      problem: `holds a public key (-----BEGIN ${label}-----), not the app's private key; generate a private key on the app's settings page and give its .pem file`,
    };
  if (label === 'ENCRYPTED PRIVATE KEY' || /Proc-Type:\s*4,ENCRYPTED/.test(pem))
    return {
      problem:
        'holds a key encrypted with a passphrase; GitHub generates it unencrypted: give the .pem file as downloaded (or decrypt it: openssl pkey -in KEY.pem -out app.pem)',
    };
  if (!label.endsWith('PRIVATE KEY'))
    return { problem: `holds a -----BEGIN ${label}----- block, not a private key; give the .pem file generated on the app's settings page` };
  if (!pem.includes(`-----END ${label}-----`))
    return {
      problem: `is cut short: it has -----BEGIN ${label}----- but no -----END ${label}----- line; give the whole .pem file, both lines included`,
    };
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
    // GitHub takes the app's JWT signed RS256: a key that cannot sign so is no key for it.
    if (key.asymmetricKeyType === 'rsa') sign('sha256', Buffer.from('conveyor'), key);
  } catch (e) {
    // OpenSSL's reason names the decoder step that failed, never the key's bytes.
    const reason = ((e as Error).message || 'unreadable').split('\n')[0];
    return {
      problem: `holds a ${label} block that is not a readable key (${reason}): it is damaged or cut short; give the whole .pem file as GitHub generated it`,
    };
  }
  if (key.asymmetricKeyType !== 'rsa')
    return { problem: `holds an ${key.asymmetricKeyType ?? 'unknown'} key; a GitHub App's private key is RSA: generate one on the app's settings page` };
  return { key };
}

/**
 * The app's private key from PRIVATE_KEY (the PEM text, which wins, as in Probot) or PRIVATE_KEY_PATH
 * (its file), checked; or what is wrong with it, said with where it came from.
 */
export function readPrivateKey(env: NodeJS.ProcessEnv): PrivateKeyReading {
  let text: string;
  let source: string;
  if (env.PRIVATE_KEY?.trim()) {
    source = 'PRIVATE_KEY';
    text = normalised(env.PRIVATE_KEY);
  } else if (env.PRIVATE_KEY_PATH?.trim()) {
    const path = resolve(env.PRIVATE_KEY_PATH.trim());
    source = `PRIVATE_KEY_PATH (${env.PRIVATE_KEY_PATH.trim()})`;
    const name = "name the .pem file generated on the app's settings page";
    let size: number;
    try {
      const stat = statSync(path);
      if (stat.isDirectory()) return { ok: false, source, problem: `is a folder; ${name}` };
      size = stat.size;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return { ok: false, source, problem: code === 'ENOENT' ? `does not exist; ${name}` : `cannot be read (${code ?? (e as Error).message}); ${name}` };
    }
    if (size > MAX_KEY_FILE_BYTES) return { ok: false, source, problem: `is ${size} bytes, far more than a private key; ${name}` };
    try {
      text = normalised(readFileSync(path, 'utf8'));
    } catch (e) {
      return { ok: false, source, problem: `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); ${name}` };
    }
  } else {
    return { ok: false, problem: "PRIVATE_KEY (the PEM text) or PRIVATE_KEY_PATH (the .pem file): a private key generated on the app's settings page" };
  }
  const result = checked(text);
  return 'problem' in result ? { ok: false, source, problem: result.problem } : { ok: true, pem: text, key: result.key, source };
}

/** A problem of readPrivateKey as serve lists it: `PRIVATE_KEY_PATH (/etc/app.pem): is cut short …`. */
export function privateKeyProblem(env: NodeJS.ProcessEnv): string | undefined {
  const reading = readPrivateKey(env);
  if (reading.ok) return undefined;
  return reading.source ? `${reading.source}: ${reading.problem}` : reading.problem;
}
