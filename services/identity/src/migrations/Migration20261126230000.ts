import { Migration } from "@mikro-orm/migrations";

/** SAML identity providers, the requests issued to them and the assertions used; tokens issued through SSO expire. */
export class Migration20261126230000 extends Migration {
  override name = "Migration20261126230000";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "saml_providers" ("id" uuid not null, "organization_id" uuid not null, "label" varchar(100) not null, "entity_id" varchar(2048) not null, "sso_url" varchar(2048) not null, "certificate" text not null, "default_team_id" uuid null, "default_role" text null, "groups_attribute" varchar(255) not null default 'groups', "status" text not null default 'pending', "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "saml_providers_organization_id_index" on "saml_providers" ("organization_id");`);
    this.addSql(
      `alter table "saml_providers" add constraint "saml_providers_default_role_check" check ("default_role" in ('admin', 'create', 'review', 'edit', 'comment', 'read'));`,
    );
    this.addSql(`alter table "saml_providers" add constraint "saml_providers_status_check" check ("status" in ('pending', 'active'));`);
    this.addSql(
      `alter table "saml_providers" add constraint "saml_providers_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "saml_providers" add constraint "saml_providers_default_team_id_foreign" foreign key ("default_team_id") references "teams" ("id") on delete set null;`,
    );

    this.addSql(
      `create table "saml_requests" ("id" varchar(64) not null, "provider_id" uuid not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "saml_requests_provider_id_index" on "saml_requests" ("provider_id");`);
    this.addSql(
      `alter table "saml_requests" add constraint "saml_requests_provider_id_foreign" foreign key ("provider_id") references "saml_providers" ("id") on delete cascade;`,
    );

    this.addSql(
      `create table "saml_assertion_uses" ("provider_id" uuid not null, "assertion_id" varchar(255) not null, "used_at" timestamptz not null, primary key ("provider_id", "assertion_id"));`,
    );
    this.addSql(
      `alter table "saml_assertion_uses" add constraint "saml_assertion_uses_provider_id_foreign" foreign key ("provider_id") references "saml_providers" ("id") on delete cascade;`,
    );

    this.addSql(`alter table "api_tokens" add column "expires_at" timestamptz null, add column "saml_provider_id" uuid null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "saml_assertion_uses" cascade;`);
    this.addSql(`drop table if exists "saml_requests" cascade;`);
    this.addSql(`drop table if exists "saml_providers" cascade;`);
    this.addSql(`alter table "api_tokens" drop column "expires_at", drop column "saml_provider_id";`);
  }
}
