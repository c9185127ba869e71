import { Migration } from "@mikro-orm/migrations";

/** Where each space is published, as last announced to content (`space_publication.updated`). */
export class Migration20261124000300 extends Migration {
  override name = "Migration20261124000300";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "space_publications" ("space_id" uuid not null, "organization_id" uuid not null, "address" text null, "version" int not null, "updated_at" timestamptz not null, primary key ("space_id"));`,
    );
  }
}
