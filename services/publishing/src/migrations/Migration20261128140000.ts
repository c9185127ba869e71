import { Migration } from "@mikro-orm/migrations";

/** The lifecycle version of the newest `space.deleted` or `space.restored` applied per space. */
export class Migration20261128140000 extends Migration {
  override name = "Migration20261128140000";

  override up(): void | Promise<void> {
    this.addSql(`create table "space_lifecycles" ("space_id" uuid not null, "version" int not null, primary key ("space_id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "space_lifecycles" cascade;`);
  }
}
