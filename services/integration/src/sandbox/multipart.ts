// multipart/form-data parsing for the guest's Request.formData(), done on the host with Buffer
// searches (a byte scan in the interpreter would cost the script's CPU budget on every event).

/** A text field carries its value; a file carries its byte range in the body. */
export interface MultipartPart {
  name: string;
  value?: string;
  filename?: string;
  type?: string;
  start?: number;
  end?: number;
}

const CRLF = Buffer.from("\r\n");
const HEADERS_END = Buffer.from("\r\n\r\n");

export function boundaryOf(contentType: string): string {
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw new TypeError("Could not parse the multipart body: its content-type has no boundary");
  return boundary;
}

export function parseMultipart(body: Uint8Array, contentType: string): MultipartPart[] {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = Buffer.from(`--${boundaryOf(contentType)}`);
  const parts: MultipartPart[] = [];
  let position = bytes.indexOf(delimiter);
  if (position === -1) throw new TypeError("Could not parse the multipart body: no boundary in it");
  for (;;) {
    position += delimiter.length;
    if (bytes[position] === 0x2d && bytes[position + 1] === 0x2d) return parts;
    // Transport padding may follow a delimiter before its line break.
    while (bytes[position] === 0x20 || bytes[position] === 0x09) position++;
    if (!bytes.subarray(position, position + 2).equals(CRLF))
      throw new TypeError("Could not parse the multipart body: a boundary is not followed by a line break");
    position += 2;
    const headersEnd = bytes.indexOf(HEADERS_END, position);
    if (headersEnd === -1) throw new TypeError("Could not parse the multipart body: a part has no end of headers");
    const headers = bytes.toString("utf8", position, headersEnd);
    const contentStart = headersEnd + HEADERS_END.length;
    const next = bytes.indexOf(Buffer.concat([CRLF, delimiter]), contentStart);
    if (next === -1) throw new TypeError("Could not parse the multipart body: a part is not closed by a boundary");
    parts.push(partOf(headers, bytes, contentStart, next));
    position = next + CRLF.length;
  }
}

function partOf(headers: string, bytes: Buffer, start: number, end: number): MultipartPart {
  let disposition = "";
  let type: string | undefined;
  for (const line of headers.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "content-disposition") disposition = value;
    else if (name === "content-type") type = value;
  }
  if (!/^form-data\s*(;|$)/i.test(disposition)) throw new TypeError("Could not parse the multipart body: a part is not form-data");
  const parameters = dispositionParameters(disposition);
  const name = parameters.get("name");
  if (name === undefined) throw new TypeError("Could not parse the multipart body: a part has no name");
  const filename = parameters.get("filename");
  if (filename === undefined) return { name, value: bytes.toString("utf8", start, end) };
  return { name, filename, type: type ?? "application/octet-stream", start, end };
}

// Browsers and undici escape quotes and line breaks in names as %22, %0D and %0A; older senders
// use backslash escapes inside the quotes.
function dispositionParameters(disposition: string): Map<string, string> {
  const parameters = new Map<string, string>();
  const pattern = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (const match of disposition.matchAll(pattern)) {
    const key = match[1]!.toLowerCase();
    const raw = match[2] !== undefined ? match[2].replace(/\\(.)/g, "$1") : match[3]!.trim();
    parameters.set(key, raw.replace(/%22/g, '"').replace(/%0D/gi, "\r").replace(/%0A/gi, "\n"));
  }
  return parameters;
}
