import { Migration } from "@mikro-orm/migrations";

/** Teams and their members. */
export class Migration20261126210000 extends Migration {
  override name = "Migration20261126210000";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "teams" ("id" uuid not null, "organization_id" uuid not null, "title" varchar(64) not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "teams_organization_created_at_index" on "teams" ("organization_id", "created_at", "id");`);
    this.addSql(
      `alter table "teams" add constraint "teams_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );

    this.addSql(
      `create table "team_members" ("id" uuid not null, "team_id" uuid not null, "user_id" uuid not null, "role" text not null, "added_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "team_members" add constraint "team_members_team_user_unique" unique ("team_id", "user_id");`);
    this.addSql(`create index "team_members_team_added_at_index" on "team_members" ("team_id", "added_at", "id");`);
    this.addSql(`create index "team_members_user_index" on "team_members" ("user_id");`);
    this.addSql(`alter table "team_members" add constraint "team_members_role_check" check ("role" in ('owner', 'member'));`);
    this.addSql(
      `alter table "team_members" add constraint "team_members_team_id_foreign" foreign key ("team_id") references "teams" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "team_members" add constraint "team_members_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "team_members" cascade;`);
    this.addSql(`drop table if exists "teams" cascade;`);
  }
}
