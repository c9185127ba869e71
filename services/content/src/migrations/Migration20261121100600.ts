import { Migration } from "@mikro-orm/migrations";

/**
 * Exports (PDF renderings of content) kept until their signed download URL expires; the bytes are
 * in the blob store. See services/content/src/exports.
 */
export class Migration20261121100600 extends Migration {
  override name = "Migration20261121100600";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "exports" ("id" uuid not null, "space_id" uuid not null, "organization_id" uuid not null, "blob_key" varchar(64) not null, "name" varchar(255) not null, "size" int not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "exports_expires_at_index" on "exports" ("expires_at");`);
    this.addSql(`create index "exports_blob_key_index" on "exports" ("blob_key");`);
  }
}
