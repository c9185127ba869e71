import { Migration } from "@mikro-orm/migrations";

/** Teams' grants on spaces and collections, and the projection of who is in which team. */
export class Migration20261126220000 extends Migration {
  override name = "Migration20261126220000";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "team_grants" ("id" uuid not null, "organization_id" uuid not null, "team_id" uuid not null, "target_type" text not null, "target_id" uuid not null, "level" text not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "team_grants" add constraint "team_grants_target_team_unique" unique ("target_type", "target_id", "team_id");`);
    this.addSql(`create index "team_grants_organization_team_index" on "team_grants" ("organization_id", "team_id");`);
    this.addSql(`alter table "team_grants" add constraint "team_grants_target_type_check" check ("target_type" in ('space', 'collection'));`);
    this.addSql(
      `alter table "team_grants" add constraint "team_grants_level_check" check ("level" in ('admin', 'create', 'review', 'edit', 'comment', 'read'));`,
    );

    this.addSql(
      `create table "team_memberships" ("team_id" uuid not null, "user_id" uuid not null, "organization_id" uuid not null, primary key ("team_id", "user_id"));`,
    );
    this.addSql(`create index "team_memberships_organization_user_index" on "team_memberships" ("organization_id", "user_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "team_grants" cascade;`);
    this.addSql(`drop table if exists "team_memberships" cascade;`);
  }
}
