import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Secrets at rest (integrations' secrets, Git sync credentials): AES-256-GCM with the deployment's
 * key (kept with resolveKeptSecret), a fresh IV per write, the owner's id as associated data (a
 * ciphertext copied onto another owner does not open). Layout: iv ‖ tag ‖ ciphertext.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: string) {
    this.key = Buffer.from(key, "base64");
    if (this.key.length !== 32) throw new Error("the secrets key must be 32 bytes");
  }

  seal(ownerId: string, secrets: Record<string, string>): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(ownerId));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(secrets), "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
  }

  open(ownerId: string, sealed: Buffer | null): Record<string, string> {
    if (!sealed) return {};
    const iv = sealed.subarray(0, IV_BYTES);
    const tag = sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv("aes-256-gcm", this.key, iv);
    decipher.setAAD(Buffer.from(ownerId));
    decipher.setAuthTag(tag);
    const plaintext = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(plaintext.toString("utf8")) as Record<string, string>;
  }
}
