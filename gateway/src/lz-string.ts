/**
 * lz-string's `decompressFromEncodedURIComponent` (lz-string 1.5.0, the format GitBook's
 * `?request=` carries), rewritten to stop as soon as the output passes a bound: LZ output grows
 * quadratically with its input, so 16 KiB of query string can expand to tens of megabytes (and
 * a tenth of a second of CPU), and lz-string itself only returns once it has built all of it. Same
 * algorithm, same result on every input it accepts (test/validation.test.ts compares the two), and
 * stricter: a character outside the alphabet or a truncated stream is refused instead of read as
 * zero bits.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-$";
const VALUE_OF = new Map([...ALPHABET].map((character, index) => [character, index]));

export type LzDecompression = { ok: true; text: string } | { ok: false; reason: "malformed" | "too-large" };

/** A reader of the stream's bits: six per character, most significant first, read into values least significant first. */
function bitReader(values: number[]) {
  let index = 0;
  let position = 32;
  return {
    read(count: number): number {
      let result = 0;
      for (let bit = 0; bit < count; bit++) {
        if ((values[index] ?? 0) & position) result |= 1 << bit;
        position >>= 1;
        if (position === 0) {
          position = 32;
          index++;
        }
      }
      return result;
    },
    /** Whether a read went past the last character (lz-string reads zeros there). */
    exhausted: () => index >= values.length,
  };
}

/** The text compressed in `input` by `compressToEncodedURIComponent`, unless it is malformed or longer than `maxChars` UTF-16 units. */
export function decompressFromEncodedURIComponent(input: string, maxChars: number): LzDecompression {
  const values: number[] = [];
  // A space is a `+` a form decoder turned into one, as lz-string assumes.
  for (const character of input.replace(/ /g, "+")) {
    const value = VALUE_OF.get(character);
    if (value === undefined) return { ok: false, reason: "malformed" };
    values.push(value);
  }
  if (values.length === 0) return { ok: false, reason: "malformed" };
  const bits = bitReader(values);

  // Codes 0 and 1 introduce an 8- or 16-bit character, 2 ends the stream; 3 and up index the dictionary.
  const dictionary: string[] = [];
  let dictSize = 4;
  let numBits = 3;
  let enlargeIn = 4;
  const first = bits.read(2);
  if (first === 2) return { ok: true, text: "" };
  if (first === 3) return { ok: false, reason: "malformed" };
  let previous = String.fromCharCode(bits.read(first === 0 ? 8 : 16));
  dictionary[3] = previous;
  const output = [previous];
  let length = previous.length;

  for (;;) {
    if (bits.exhausted()) return { ok: false, reason: "malformed" };
    let code = bits.read(numBits);
    if (code === 0 || code === 1) {
      dictionary[dictSize++] = String.fromCharCode(bits.read(code === 0 ? 8 : 16));
      code = dictSize - 1;
      enlargeIn--;
    } else if (code === 2) {
      return { ok: true, text: output.join("") };
    }
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
    const known = dictionary[code];
    let entry: string;
    if (known !== undefined) entry = known;
    else if (code === dictSize) entry = previous + previous.charAt(0);
    else return { ok: false, reason: "malformed" };
    length += entry.length;
    if (length > maxChars) return { ok: false, reason: "too-large" };
    output.push(entry);
    dictionary[dictSize++] = previous + entry.charAt(0);
    enlargeIn--;
    previous = entry;
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
  }
}
