// Builds the demo page into dist/: index.html, app.css and one bundled app.js (+ source map).
// Usage: npm run build   (from web/, or `npm --prefix web run build` from the repo root)
import { copyFile, mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, "src");
const dist = join(here, "dist");

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await esbuild.build({
  entryPoints: [join(src, "main.js")],
  outfile: join(dist, "app.js"),
  bundle: true,
  format: "esm",
  target: "es2020",
  minify: true,
  sourcemap: true,
  legalComments: "linked",
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "info",
});
await copyFile(join(src, "index.html"), join(dist, "index.html"));
await copyFile(join(src, "app.css"), join(dist, "app.css"));
console.log(`demo page built in ${dist}`);
