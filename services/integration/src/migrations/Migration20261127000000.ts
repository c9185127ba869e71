import { Migration } from "@mikro-orm/migrations";
import { addRuntimeTables } from "@imprint/runtime";

/**
 * The integration context's tables: integrations (unique name, sealed secrets, development
 * tunnel), their images, installations on organizations (one per integration and organization) and
 * on spaces and sites, and the integration events with their delivery state (ordered per
 * installation by `sequence`), plus the runtime's tables.
 */
export class Migration20261127000000 extends Migration {
  override name = "Migration20261127000000";

  override up(): void | Promise<void> {
    // The runtime's tables of the time; those it added later come with later migrations.
    addRuntimeTables(this, ["outbox_events", "processed_events", "job_leases"]);

    this.addSql(
      `create table "integrations" ("id" uuid not null, "name" varchar(100) not null, "owner_organization_id" uuid not null, "version" int not null, "runtime" varchar(8) not null, "title" varchar(30) not null, "description" varchar(100) not null, "summary" text null, "visibility" varchar(16) not null, "target" varchar(16) not null, "scopes" jsonb not null, "categories" jsonb not null, "blocks" jsonb not null, "content_sources" jsonb not null, "external_links" jsonb not null, "configurations" jsonb not null, "script" text not null, "secrets_ciphertext" bytea null, "secret_names" jsonb not null, "content_security_policy" text null, "icon_asset_id" uuid null, "preview_asset_ids" jsonb not null, "signing_secret" varchar(64) not null, "dev_tunnel_url" text null, "dev_all" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "integrations" add constraint "integrations_name_unique" unique ("name");`);
    this.addSql(`create index "integrations_owner_organization_id_index" on "integrations" ("owner_organization_id");`);
    this.addSql(`create index "integrations_visibility_name_index" on "integrations" ("visibility", "name");`);

    this.addSql(
      `create table "integration_assets" ("id" uuid not null, "integration_id" uuid not null, "content_type" varchar(32) not null, "content" bytea not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "integration_assets_integration_id_index" on "integration_assets" ("integration_id");`);

    this.addSql(
      `create table "installations" ("id" uuid not null, "integration_id" uuid not null, "organization_id" uuid not null, "status" varchar(16) not null, "configuration" jsonb not null, "external_ids" text[] not null, "space_selection" varchar(16) not null, "site_selection" varchar(16) not null, "signing_secret" varchar(64) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "installations_organization_id_index" on "installations" ("organization_id");`);
    this.addSql(`create index "installations_integration_created_at_index" on "installations" ("integration_id", "created_at", "id");`);
    this.addSql(`alter table "installations" add constraint "installations_integration_organization_unique" unique ("integration_id", "organization_id");`);

    this.addSql(
      `create table "target_installations" ("id" uuid not null, "installation_id" uuid not null, "integration_id" uuid not null, "organization_id" uuid not null, "kind" varchar(8) not null, "target_id" uuid not null, "status" varchar(16) not null, "configuration" jsonb not null, "external_ids" text[] not null, "signing_secret" varchar(64) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "target_installations_integration_kind_index" on "target_installations" ("integration_id", "kind", "created_at", "id");`);
    this.addSql(`create index "target_installations_target_index" on "target_installations" ("kind", "target_id");`);
    this.addSql(
      `alter table "target_installations" add constraint "target_installations_installation_target_unique" unique ("installation_id", "kind", "target_id");`,
    );

    this.addSql(
      `create table "integration_events" ("id" uuid not null, "sequence" bigserial, "integration_id" uuid not null, "installation_id" uuid null, "organization_id" uuid null, "target_installation_id" uuid null, "type" varchar(64) not null, "payload" jsonb not null, "source_key" varchar(200) not null, "state" varchar(16) not null, "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "trace" jsonb not null, "created_at" timestamptz not null, "finished_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "integration_events" add constraint "integration_events_sequence_unique" unique ("sequence");`);
    this.addSql(`alter table "integration_events" add constraint "integration_events_source_key_unique" unique ("source_key");`);
    this.addSql(`create index "integration_events_integration_created_at_index" on "integration_events" ("integration_id", "created_at", "id");`);
    this.addSql(`create index "integration_events_pending_index" on "integration_events" ("state", "next_attempt_at");`);
    this.addSql(`create index "integration_events_installation_sequence_index" on "integration_events" ("installation_id", "sequence");`);
  }
}
