import { Migration } from "@mikro-orm/migrations";

/** Sites' user and team grants (site_user_grants, site_team_grants) and publishing's copy of who is in which team (team_memberships and its tombstones, as content keeps it). */
export class Migration20261206080604 extends Migration {
  override name = "Migration20261206080604";

  override up(): void | Promise<void> {
    this.addSql(`create table "deleted_teams" ("team_id" uuid not null, "organization_id" uuid not null, "version" int not null, primary key ("team_id"));`);

    this.addSql(
      `create table "removed_members" ("organization_id" uuid not null, "user_id" uuid not null, "version" int not null, primary key ("organization_id", "user_id"));`,
    );

    this.addSql(
      `create table "site_team_grants" ("site_id" uuid not null, "team_id" uuid not null, "organization_id" uuid not null, "level" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("site_id", "team_id"));`,
    );
    this.addSql(`create index "site_team_grants_organization_team_index" on "site_team_grants" ("organization_id", "team_id");`);
    this.addSql(`create index "site_team_grants_site_created_at_index" on "site_team_grants" ("site_id", "created_at", "team_id");`);

    this.addSql(
      `create table "site_user_grants" ("site_id" uuid not null, "user_id" uuid not null, "organization_id" uuid not null, "level" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("site_id", "user_id"));`,
    );
    this.addSql(`create index "site_user_grants_organization_user_index" on "site_user_grants" ("organization_id", "user_id");`);
    this.addSql(`create index "site_user_grants_site_created_at_index" on "site_user_grants" ("site_id", "created_at", "user_id");`);

    this.addSql(
      `create table "team_memberships" ("team_id" uuid not null, "user_id" uuid not null, "organization_id" uuid not null, "version" int not null default 0, "present" boolean not null default true, primary key ("team_id", "user_id"));`,
    );
    this.addSql(`create index "team_memberships_organization_user_index" on "team_memberships" ("organization_id", "user_id");`);

    this.addSql(
      `create table "team_membership_reconciliations" ("organization_id" uuid not null, "version" int not null, "reconciled_at" timestamptz not null, primary key ("organization_id"));`,
    );

    this.addSql(
      `alter table "site_team_grants" add constraint "site_team_grants_level_check" check ("level" in ('admin', 'create', 'review', 'edit', 'comment', 'read'));`,
    );

    this.addSql(
      `alter table "site_user_grants" add constraint "site_user_grants_level_check" check ("level" in ('admin', 'create', 'review', 'edit', 'comment', 'read'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "deleted_teams" cascade;`);
    this.addSql(`drop table if exists "removed_members" cascade;`);
    this.addSql(`drop table if exists "site_team_grants" cascade;`);
    this.addSql(`drop table if exists "site_user_grants" cascade;`);
    this.addSql(`drop table if exists "team_memberships" cascade;`);
    this.addSql(`drop table if exists "team_membership_reconciliations" cascade;`);
  }
}
