// Renders build/icon.svg into the icon files electron-builder uses, with the machine's Chromium
// (playwright-core, as the renderer tests do; CHROME_PATH or /usr/bin/chromium):
//   build/icons/<N>x<N>.png   Linux icon set, 16..1024   build/icon.png  1024 px
//   build/icon.icns           macOS (PNG entries)        build/icon.ico  Windows (BMP ≤ 128, PNG 256)
// Run after editing the SVG: node build/make-icons.mjs. The outputs are committed.
/* global Image, document -- used inside page.evaluate, which runs in the browser */
import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dir = path.dirname(fileURLToPath(import.meta.url));
const svg = fs.readFileSync(path.join(dir, "icon.svg"), "utf8");
const SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];

const browser = await chromium.launch({ executablePath: process.env.CHROME_PATH ?? "/usr/bin/chromium" });
const page = await browser.newPage();
const rendered = await page.evaluate(async ({ svg, sizes }) => {
  const image = new Image();
  image.src = `data:image/svg+xml;base64,${btoa(svg)}`;
  await image.decode();
  const out = {};
  for (const size of sizes) {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = size;
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0, size, size);
    out[size] = { png: canvas.toDataURL("image/png").split(",")[1], rgba: Array.from(context.getImageData(0, 0, size, size).data) };
  }
  return out;
}, { svg, sizes: SIZES });
await browser.close();

const png = (size) => Buffer.from(rendered[size].png, "base64");
fs.mkdirSync(path.join(dir, "icons"), { recursive: true });
for (const size of SIZES) fs.writeFileSync(path.join(dir, "icons", `${size}x${size}.png`), png(size));
fs.writeFileSync(path.join(dir, "icon.png"), png(1024));

// ICNS: a list of (type, length, PNG data) after the 'icns' header.
const icnsTypes = [["icp4", 16], ["icp5", 32], ["icp6", 64], ["ic07", 128], ["ic08", 256], ["ic09", 512], ["ic10", 1024], ["ic11", 32], ["ic12", 64], ["ic13", 256], ["ic14", 512]];
const icnsEntries = icnsTypes.map(([type, size]) => {
  const head = Buffer.alloc(8);
  head.write(type, 0, "ascii");
  head.writeUInt32BE(8 + png(size).length, 4);
  return Buffer.concat([head, png(size)]);
});
const icnsHead = Buffer.alloc(8);
icnsHead.write("icns", 0, "ascii");
icnsHead.writeUInt32BE(8 + icnsEntries.reduce((n, e) => n + e.length, 0), 4);
fs.writeFileSync(path.join(dir, "icon.icns"), Buffer.concat([icnsHead, ...icnsEntries]));

// ICO: 32-bit BMP entries for the small sizes (every Windows tool reads them), PNG for 256.
function bmp(size) {
  const rgba = rendered[size].rgba;
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(size, 4);
  header.writeInt32LE(size * 2, 8); // XOR bitmap + AND mask
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  const pixels = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const from = ((size - 1 - y) * size + x) * 4; // bottom-up rows
      const to = (y * size + x) * 4;
      pixels[to] = rgba[from + 2];
      pixels[to + 1] = rgba[from + 1];
      pixels[to + 2] = rgba[from];
      pixels[to + 3] = rgba[from + 3];
    }
  }
  const mask = Buffer.alloc(Math.ceil(size / 32) * 4 * size); // all zero: alpha channel decides
  return Buffer.concat([header, pixels, mask]);
}
const icoSizes = [16, 24, 32, 48, 64, 128, 256];
const images = icoSizes.map((size) => (size === 256 ? png(256) : bmp(size)));
const icoHead = Buffer.alloc(6 + 16 * icoSizes.length);
icoHead.writeUInt16LE(1, 2);
icoHead.writeUInt16LE(icoSizes.length, 4);
let offset = icoHead.length;
icoSizes.forEach((size, i) => {
  const at = 6 + 16 * i;
  icoHead.writeUInt8(size === 256 ? 0 : size, at);
  icoHead.writeUInt8(size === 256 ? 0 : size, at + 1);
  icoHead.writeUInt16LE(1, at + 4);
  icoHead.writeUInt16LE(32, at + 6);
  icoHead.writeUInt32LE(images[i].length, at + 8);
  icoHead.writeUInt32LE(offset, at + 12);
  offset += images[i].length;
});
fs.writeFileSync(path.join(dir, "icon.ico"), Buffer.concat([icoHead, ...images]));
console.log(`wrote build/icons/{${SIZES.join(",")}}px, build/icon.png, build/icon.icns, build/icon.ico`);
