export { loadContentConfig, contentConfigShape, type ContentConfig, type ResolvedContentConfig } from "./config.js";
export { contentEntities, contentServiceSpec, startContentService, CONTENT_MIGRATIONS_PATH } from "./service.js";
export type { ContentDeps } from "./deps.js";
export { COLLECTION_SERVICE_NAME, SPACE_SERVICE_NAME, Collection, Space } from "./spaces/index.js";
export { FileSystemBlobStore, type BlobStore } from "./blob-store.js";
export { S3BlobStore, type S3BlobStoreOptions } from "./s3-blob-store.js";
