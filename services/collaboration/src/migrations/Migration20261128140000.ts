import { Migration } from "@mikro-orm/migrations";

/** The newest lifecycle version of each space applied from content's `space.transferred`. */
export class Migration20261128140000 extends Migration {
  override name = "Migration20261128140000";

  override up(): void | Promise<void> {
    this.addSql(`alter table "space_states" add column "lifecycle_version" int not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "space_states" drop column "lifecycle_version";`);
  }
}
