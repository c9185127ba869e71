export { loadContentConfig, contentConfigShape, type ContentConfig, type ResolvedContentConfig } from "./config.js";
export { contentEntities, contentServiceSpec, startContentService, CONTENT_MIGRATIONS_PATH } from "./service.js";
export type { ContentDeps } from "./deps.js";
export { COLLECTION_SERVICE_NAME, SPACE_SERVICE_NAME, Collection, Space } from "./spaces/index.js";
export { FileSystemBlobStore, type BlobStore } from "./blob-store.js";
// The S3 store (and the AWS SDK it loads) is imported only when FILE_STORE=s3 (see startContentService).
export type { S3BlobStore, S3BlobStoreOptions } from "./s3-blob-store.js";
