import { Migration } from "@mikro-orm/migrations";

/** The version of each organization's team memberships, carried by the team events (`membershipVersion`). */
export class Migration20261128130000 extends Migration {
  override name = "Migration20261128130000";

  override up(): void | Promise<void> {
    this.addSql(`alter table "organizations" add column "membership_version" int not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "organizations" drop column "membership_version";`);
  }
}
