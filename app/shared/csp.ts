// The renderer's Content Security Policy: one string, put into index.html as a meta tag at build
// time (Electron loads the renderer from file://, where there are no response headers) and sent
// as a header by the headless host. No remote code, no eval, no plugins, no framing.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // React and xterm.js set element styles at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  // The headless host's WebSocket is same-origin.
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join("; ");

/** The same policy for the meta tag: browsers ignore `frame-ancestors` there (and say so). */
export const META_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.split("; ")
  .filter((directive) => !directive.startsWith("frame-ancestors"))
  .join("; ");
