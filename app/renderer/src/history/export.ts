// Saves an exported session as a file download (a blob: URL, allowed by the CSP).
export function downloadText(fileName: string, content: string, type = "text/markdown"): void {
  const url = URL.createObjectURL(new Blob([content], { type: `${type};charset=utf-8` }));
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
