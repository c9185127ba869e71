import { Migration } from "@mikro-orm/migrations";

/** Each organization's key signing its members' visitor tokens (the ping's `serviceVisitorClaims`). */
export class Migration20261124000200 extends Migration {
  override name = "Migration20261124000200";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "organization_visitor_keys" ("organization_id" uuid not null, "key" varchar(64) not null, "created_at" timestamptz not null, primary key ("organization_id"));`,
    );
  }
}
