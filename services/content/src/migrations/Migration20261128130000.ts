import { Migration } from "@mikro-orm/migrations";

/**
 * Team memberships ordered by identity's `membershipVersion`: each row keeps the version of its
 * last change and stays as a tombstone when its user leaves; deleted teams, members' removals and
 * reconciliations keep theirs, so a late event cannot move the copy backwards.
 */
export class Migration20261128130000 extends Migration {
  override name = "Migration20261128130000";

  override up(): void | Promise<void> {
    this.addSql(`alter table "team_memberships" add column "version" int not null default 0, add column "present" boolean not null default true;`);
    this.addSql(`create table "deleted_teams" ("team_id" uuid not null, "organization_id" uuid not null, "version" int not null, primary key ("team_id"));`);
    this.addSql(
      `create table "removed_members" ("organization_id" uuid not null, "user_id" uuid not null, "version" int not null, primary key ("organization_id", "user_id"));`,
    );
    this.addSql(
      `create table "team_membership_reconciliations" ("organization_id" uuid not null, "version" int not null, "reconciled_at" timestamptz not null, primary key ("organization_id"));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "team_membership_reconciliations" cascade;`);
    this.addSql(`drop table if exists "removed_members" cascade;`);
    this.addSql(`drop table if exists "deleted_teams" cascade;`);
    this.addSql(`alter table "team_memberships" drop column "present", drop column "version";`);
  }
}
