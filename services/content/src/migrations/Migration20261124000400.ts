import { Migration } from "@mikro-orm/migrations";

/** Where each space is published: the projection of publishing's `space_publication.updated` events. */
export class Migration20261124000400 extends Migration {
  override name = "Migration20261124000400";

  override up(): void | Promise<void> {
    this.addSql(`alter table "spaces" add column "published_address" text null, add column "published_version" int not null default 0;`);
  }
}
