import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/**
 * The fonts a site may choose (GitBook's `styling.font` and `styling.headingFont` names) that the
 * reader serves itself: variable fonts from `@fontsource-variable/*`, latin subset only, one file
 * each covering every weight, at content-hashed paths (cached forever, like the stylesheet). Nothing
 * is fetched from another origin (the page's policy keeps fonts to 'self'). Any other name (GitBook's
 * proprietary ABCFavorit, fonts without a variable cut, a custom font's URLs) reads in the system
 * stack; so does every character outside the latin subset.
 */
export interface ReaderFont {
  /** The CSS family name of the served file. */
  family: string;
  /** The stack after it: the system's own faces of the same kind. */
  fallback: string;
  /** Where the file is served, under the reader's asset base. */
  path: string;
  /** The weights the variable file covers (`font-weight` of its `@font-face`). */
  weights: string;
}

/** A served font file. */
export interface FontFile {
  path: string;
  body: Buffer;
}

const SANS = `system-ui,-apple-system,"Segoe UI",Roboto,sans-serif`;
const SERIF = `ui-serif,Georgia,Cambria,"Times New Roman",serif`;

/** GitBook's font name → the fontsource package and file that serve it. */
const CATALOGUE: Readonly<Record<string, { family: string; package: string; file: string; weights: string; fallback: string }>> = {
  Inter: { family: "Inter Variable", package: "@fontsource-variable/inter", file: "inter-latin-wght-normal.woff2", weights: "100 900", fallback: SANS },
  Roboto: { family: "Roboto Variable", package: "@fontsource-variable/roboto", file: "roboto-latin-wght-normal.woff2", weights: "100 900", fallback: SANS },
  OpenSans: {
    family: "Open Sans Variable",
    package: "@fontsource-variable/open-sans",
    file: "open-sans-latin-wght-normal.woff2",
    weights: "300 800",
    fallback: SANS,
  },
  SourceSansPro: {
    family: "Source Sans 3 Variable",
    package: "@fontsource-variable/source-sans-3",
    file: "source-sans-3-latin-wght-normal.woff2",
    weights: "200 900",
    fallback: SANS,
  },
  Raleway: { family: "Raleway Variable", package: "@fontsource-variable/raleway", file: "raleway-latin-wght-normal.woff2", weights: "100 900", fallback: SANS },
  Merriweather: {
    family: "Merriweather Variable",
    package: "@fontsource-variable/merriweather",
    file: "merriweather-latin-wght-normal.woff2",
    weights: "300 900",
    fallback: SERIF,
  },
};

/** The latin subset's code points, as fontsource cuts it: other characters fall through to the system stack. */
export const LATIN_UNICODE_RANGE =
  "U+0000-00FF,U+0131,U+0152-0153,U+02BB-02BC,U+02C6,U+02DA,U+02DC,U+0304,U+0308,U+0329,U+2000-206F,U+20AC,U+2122,U+2191,U+2193,U+2212,U+2215,U+FEFF,U+FFFD";

const require = createRequire(import.meta.url);

function load(): { fonts: Map<string, ReaderFont>; files: Map<string, FontFile> } {
  const fonts = new Map<string, ReaderFont>();
  const files = new Map<string, FontFile>();
  for (const [name, entry] of Object.entries(CATALOGUE)) {
    const body = readFileSync(require.resolve(`${entry.package}/files/${entry.file}`));
    const hash = createHash("sha256").update(body).digest("base64url").slice(0, 12);
    const path = `/_assets/font-${name.toLowerCase()}.${hash}.woff2`;
    fonts.set(name, { family: entry.family, fallback: entry.fallback, path, weights: entry.weights });
    files.set(path, { path, body });
  }
  return { fonts, files };
}

const loaded = load();

/** GitBook's font names the reader serves. */
export const SERVED_FONTS: readonly string[] = Object.keys(CATALOGUE);

/** The served font for a customization's font setting; undefined for any other value (the system stack). */
export function readerFont(name: unknown): ReaderFont | undefined {
  return typeof name === "string" ? loaded.fonts.get(name) : undefined;
}

/** The font file served at `path` (under the reader's asset base), if any. */
export function fontFile(path: string): FontFile | undefined {
  return loaded.files.get(path);
}

/** The `@font-face` of a served font and the stack that uses it, for `selector`. */
export function fontCss(font: ReaderFont, assetBase: string, selector: string): string {
  return (
    `@font-face{font-family:"${font.family}";font-style:normal;font-display:swap;font-weight:${font.weights};` +
    `src:url(${assetBase}${font.path}) format("woff2");unicode-range:${LATIN_UNICODE_RANGE}}` +
    `${selector}{font-family:"${font.family}",${font.fallback}}`
  );
}
