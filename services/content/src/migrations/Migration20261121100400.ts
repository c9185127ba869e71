import { Migration } from "@mikro-orm/migrations";

/**
 * OpenAPI specifications (each row is also its background processing job) with their processed
 * versions, and translation settings. See services/content/src/openapi and src/translations.
 */
export class Migration20261121100400 extends Migration {
  override name = "Migration20261121100400";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "openapi_specs" ("id" uuid not null, "organization_id" uuid not null, "slug" varchar(100) not null, "source_url" varchar(2048) not null, "processing_state" text not null default 'pending', "source_generation" int not null default 1, "claimed_generation" int null, "lease_expires_at" timestamptz null, "last_version_id" uuid null, "last_processed_at" timestamptz null, "last_process_error_code" text null, "last_process_errors" jsonb not null default '[]', "last_process_error_count" int not null default 0, "created_by" uuid null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "openapi_specs" add constraint "openapi_specs_organization_slug_unique" unique ("organization_id", "slug");`);
    this.addSql(`create index "openapi_specs_processing_index" on "openapi_specs" ("processing_state", "lease_expires_at");`);
    this.addSql(
      `alter table "openapi_specs" add constraint "openapi_specs_processing_state_check" check ("processing_state" in ('pending', 'progress', 'complete'));`,
    );
    this.addSql(
      `alter table "openapi_specs" add constraint "openapi_specs_last_process_error_code_check" check ("last_process_error_code" in ('FETCH_TIMEOUT', 'FETCH_ERROR', 'PARSE_ERROR'));`,
    );

    this.addSql(
      `create table "openapi_spec_versions" ("id" uuid not null, "spec_id" uuid not null, "source_url" varchar(2048) not null, "content_hash" varchar(64) not null, "title" text not null, "api_version" text not null, "specification" varchar(64) not null, "format" varchar(8) not null, "size_bytes" int not null, "raw_text" text not null, "document" jsonb not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "openapi_spec_versions_spec_created_at_index" on "openapi_spec_versions" ("spec_id", "created_at");`);

    this.addSql(
      `create table "translation_settings" ("id" uuid not null, "organization_id" uuid not null, "title" varchar(128) not null, "languages" text[] not null default '{}', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "translation_settings_organization_created_at_index" on "translation_settings" ("organization_id", "created_at", "id");`);
  }
}
