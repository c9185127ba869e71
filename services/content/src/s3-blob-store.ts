import { createHash } from "node:crypto";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { BLOB_KEY, type BlobStore } from "./blob-store.js";

/** Where an S3-compatible bucket is and how to sign in to it (FILE_STORE=s3). */
export interface S3BlobStoreOptions {
  bucket: string;
  /** Unset: AWS S3 itself; set for MinIO, Ceph, R2, … */
  endpoint?: string | undefined;
  region: string;
  /** Unset (both): the SDK's default chain (environment, web identity, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
  /** Prepended to every object key, e.g. `imprint/content/`. */
  prefix: string;
}

/**
 * Blobs as objects of one bucket, named `<prefix><first two hex digits>/<sha-256>`, so every
 * content replica reads what any other stored without a shared volume. Object keys are built from
 * the blob key alone (64 hex digits), never from names users give.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  constructor(private readonly options: S3BlobStoreOptions) {
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      forcePathStyle: options.forcePathStyle,
      // The SDK waits forever by default: a store that stops answering must fail the call (the
      // SDK's retries, then the caller's error), while a slow but moving 50 MiB upload goes on.
      requestHandler: { connectionTimeout: 5_000, socketTimeout: 30_000 },
    });
  }

  private objectKey(key: string): string {
    if (!BLOB_KEY.test(key)) throw new Error(`not a blob key: ${key}`);
    return `${this.options.prefix}${key.slice(0, 2)}/${key}`;
  }

  async put(bytes: Uint8Array): Promise<{ key: string; size: number }> {
    const key = createHash("sha256").update(bytes).digest("hex");
    // A PUT is atomic (readers see all or nothing) and the same key always holds the same bytes, so
    // concurrent writers need no coordination; skipping a present object saves the upload.
    if (!(await this.has(key))) {
      await this.client.send(new PutObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key), Body: bytes, ContentLength: bytes.byteLength }));
    }
    return { key, size: bytes.byteLength };
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
      if (!answer.Body) return Buffer.alloc(0);
      return Buffer.from(await answer.Body.transformToByteArray());
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers a delete of a missing key with success: already gone is gone.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
  }

  /** Checks the bucket exists and the credentials reach it, so a wrong setting stops the start, not the first upload. */
  async prepare(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
    } catch (error) {
      const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
      const reason =
        status === 404
          ? "it does not exist (Imprint does not create it)"
          : status === 403
            ? "access denied"
            : `${(error as Error).name}: ${(error as Error).message}`;
      throw new Error(
        `the content service cannot use its S3 bucket "${this.options.bucket}"${this.options.endpoint ? ` at ${this.options.endpoint}` : ""}: ${reason}; check S3_BUCKET, S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY`,
        { cause: error },
      );
    }
  }

  close(): void {
    this.client.destroy();
  }
}

function isNotFound(error: unknown): boolean {
  if (!(error instanceof S3ServiceException) || error.name === "NoSuchBucket") return false;
  // HEAD answers carry no body, so their error is named by its status only.
  return error.name === "NoSuchKey" || error.name === "NotFound" || error.$metadata.httpStatusCode === 404;
}
