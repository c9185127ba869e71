export { loadContentConfig, contentConfigShape, type ContentConfig, type ResolvedContentConfig } from "./config.js";
export { contentServiceSpec, startContentService, CONTENT_MIGRATIONS_PATH } from "./service.js";
export type { ContentDeps } from "./deps.js";
export { COLLECTION_SERVICE_NAME } from "./spaces/grpc/collection-service.js";
export { SPACE_SERVICE_NAME } from "./spaces/grpc/space-service.js";
export { Collection } from "./spaces/domain/collection.js";
export { Space } from "./spaces/domain/space.js";
export { FileSystemBlobStore, type BlobStore } from "./blob-store.js";
export { S3BlobStore, type S3BlobStoreOptions } from "./s3-blob-store.js";
