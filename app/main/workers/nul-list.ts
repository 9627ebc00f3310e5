// NUL-separated path lists as the checkpoint jobs receive them (a path is raw bytes: any byte but
// NUL). Pure; never throws.
import type { Buffer } from "node:buffer";

/** The pieces of NUL-terminated (or separated) `data`, without a final empty one; views, not copies. */
export function splitNul(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = data.indexOf(0, start); i !== -1; i = data.indexOf(0, start)) {
    out.push(data.subarray(start, i));
    start = i + 1;
  }
  if (start < data.length) out.push(data.subarray(start));
  return out;
}
