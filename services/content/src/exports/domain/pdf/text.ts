/**
 * Text as the PDF's fonts can show it. The export uses the PDF standard fonts (Helvetica and
 * Courier, present in every viewer, nothing to embed), whose encoding is Windows-1252: Latin
 * letters with their accents, Western punctuation, the euro sign. Everything else is replaced
 * here by its nearest spelling (arrows → `->`, ligatures and compatibility forms by their
 * decomposition, accented letters outside the set by the bare letter), emoji are dropped, and
 * what has no spelling becomes `?`, so a reader sees that something was there.
 */

/** Characters outside Latin-1 that Windows-1252 still encodes (pdfkit maps them). */
const WINDOWS_1252_EXTRAS = new Set(
  "\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013\u2014\u2018\u2019\u201a\u201c\u201d\u201e\u2020\u2021\u2022\u2026\u2030\u2039\u203a\u20ac\u2122",
);

const SPELLINGS: Record<string, string> = {
  "\u2190": "<-",
  "\u2192": "->",
  "\u2194": "<->",
  "\u21d0": "<=",
  "\u21d2": "=>",
  "\u21d4": "<=>",
  "\u2191": "^",
  "\u2193": "v",
  "\u2264": "<=",
  "\u2265": ">=",
  "\u2260": "!=",
  "\u2248": "~",
  "\u2212": "-",
  "\u2010": "-",
  "\u2011": "-",
  "\u2032": "'",
  "\u2033": '"',
  "\u2713": "v",
  "\u2714": "v",
  "\u2717": "x",
  "\u2718": "x",
  "\u221e": "oo",
};

/** Spaces of other widths print as a space; invisible format characters print as nothing. */
const OTHER_SPACE = /[\u2000-\u200a\u202f\u205f\u3000]/u;
const PICTOGRAPH = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}]/u;
const COMBINING = /\p{M}/u;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Zero-width spaces and joiners, word joiner, byte order mark, variation selectors. */
function invisible(code: number): boolean {
  return (code >= 0x200b && code <= 0x200d) || code === 0x2060 || code === 0xfeff || (code >= 0xfe00 && code <= 0xfe0f);
}

function encodable(char: string): boolean {
  const code = char.codePointAt(0)!;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WINDOWS_1252_EXTRAS.has(char);
}

function spell(char: string): string {
  if (encodable(char)) return char;
  if (char === "\t") return "    ";
  const known = SPELLINGS[char];
  if (known !== undefined) return known;
  if (OTHER_SPACE.test(char)) return " ";
  if (invisible(char.codePointAt(0)!) || PICTOGRAPH.test(char)) return "";
  const decomposed = [...char.normalize("NFKD")].filter((part) => !COMBINING.test(part));
  if (decomposed.length > 0 && decomposed.every(encodable)) return decomposed.join("");
  return "?";
}

/** One line of text (no line breaks) in characters the standard fonts encode. */
export function printable(text: string): string {
  if (PRINTABLE_ASCII.test(text)) return text;
  let out = "";
  for (const char of text.normalize("NFC")) out += char === "\n" || char === "\r" ? " " : spell(char);
  return out;
}

/** Text that may hold line breaks (soft breaks in paragraphs): each line made printable. */
export function printableLines(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => printable(line))
    .join("\n");
}

/** A line of code: tabs to the next multiple of 4 columns, then printable. */
export function printableCode(line: string): string {
  let column = 0;
  let expanded = "";
  for (const char of line) {
    if (char === "\t") {
      const spaces = 4 - (column % 4);
      expanded += " ".repeat(spaces);
      column += spaces;
    } else {
      expanded += char;
      column++;
    }
  }
  return printable(expanded);
}
