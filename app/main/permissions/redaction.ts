// Secret redaction for tool output: the configured provider keys, and common token formats
// (cloud keys, GitHub and other service tokens, private key blocks). Pure and fast on large text:
// one pass per pattern, nothing allocated when nothing matches.
export interface Redaction {
  text: string;
  /** Kinds of secrets removed, with counts. */
  found: Record<string, number>;
}

const PATTERNS: [kind: string, pattern: RegExp][] = [
  ["private key", /-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?-----END \1-----/g],
  ["AWS access key", /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g],
  ["AWS secret key", /(aws_secret_access_key|AWS_SECRET_ACCESS_KEY|aws_session_token|AWS_SESSION_TOKEN)(\s*[=:]\s*["']?)[A-Za-z0-9/+=]{20,}/g],
  ["GitHub token", /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g],
  ["GitLab token", /\bglpat-[A-Za-z0-9_-]{20,}\b/g],
  ["Anthropic key", /\bsk-ant-[A-Za-z0-9_-]{20,}/g],
  ["OpenAI key", /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g],
  ["Google API key", /\bAIza[0-9A-Za-z_-]{35}\b/g],
  ["Slack token", /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g],
  ["Stripe key", /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}\b/g],
  ["npm token", /\bnpm_[A-Za-z0-9]{36}\b/g],
  ["Azure storage key", /(AccountKey=)[A-Za-z0-9+/=]{60,}/g],
];

const KEEP_PREFIX = new Set(["AWS secret key", "Azure storage key"]);

export function redactSecrets(text: string, knownSecrets: readonly string[] = []): Redaction {
  const found: Record<string, number> = {};
  let out = text;
  for (const secret of knownSecrets) {
    if (secret.length < 8 || !out.includes(secret)) continue;
    const parts = out.split(secret);
    found["configured API key"] = (found["configured API key"] ?? 0) + parts.length - 1;
    out = parts.join("[REDACTED: configured API key]");
  }
  for (const [kind, pattern] of PATTERNS) {
    pattern.lastIndex = 0;
    if (!pattern.test(out)) continue;
    pattern.lastIndex = 0;
    out = out.replace(pattern, (...m: string[]) => {
      found[kind] = (found[kind] ?? 0) + 1;
      return KEEP_PREFIX.has(kind) ? `${m[1]}${kind === "AWS secret key" ? m[2] : ""}[REDACTED: ${kind}]` : `[REDACTED: ${kind}]`;
    });
  }
  return { text: out, found };
}

export function describeRedactions(found: Record<string, number>): string {
  return Object.entries(found)
    .map(([kind, n]) => `${n} ${kind}${n === 1 ? "" : "s"}`)
    .join(", ");
}
