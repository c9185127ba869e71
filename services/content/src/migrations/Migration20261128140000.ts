import { Migration } from "@mikro-orm/migrations";

/** Each space's lifecycle version (deletions, restorations, transfers), carried by those events as `lifecycleVersion`. */
export class Migration20261128140000 extends Migration {
  override name = "Migration20261128140000";

  override up(): void | Promise<void> {
    this.addSql(`alter table "spaces" add column "lifecycle_version" int not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "spaces" drop column "lifecycle_version";`);
  }
}
