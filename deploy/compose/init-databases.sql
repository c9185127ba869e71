-- Run once by the postgres image on an empty data directory: one database per service
-- (docs/operations.md § PostgreSQL); each service creates its tables at start.
CREATE DATABASE imprint_identity;
CREATE DATABASE imprint_content;
CREATE DATABASE imprint_collaboration;
CREATE DATABASE imprint_publishing;
CREATE DATABASE imprint_integration;
