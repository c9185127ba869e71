import { Migration } from "@mikro-orm/migrations";

/**
 * Import runs: imports queued by StartImportRun and executed by the import-runs job, each row also
 * the run's claim (attempt, lease). See services/content/src/import/domain/import-run.ts.
 */
export class Migration20261123200300 extends Migration {
  override name = "Migration20261123200300";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "import_runs" ("id" uuid not null, "organization_id" uuid not null, "space_id" uuid not null, "change_request_id" uuid null, "under_page_id" varchar(64) null, "source" varchar(32) not null, "url" text not null, "status" text not null default 'pending', "reason" varchar(1000) null, "created_by" uuid not null, "created_by_token_id" text null, "attempt" int not null default 0, "interruptions" int not null default 0, "lease_expires_at" timestamptz null, "pages_fetched" int not null default 0, "pages_failed" int not null default 0, "files_fetched" int not null default 0, "imported_resources" int not null default 0, "total_resources" int not null default 0, "revision_id" uuid null, "pages" jsonb not null default '[]', "created_at" timestamptz not null, "updated_at" timestamptz not null, "started_at" timestamptz null, "finished_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "import_runs" add constraint "import_runs_status_check" check ("status" in ('pending', 'in-progress', 'completed', 'failed', 'cancelled'));`,
    );
    this.addSql(`create index "import_runs_organization_created_index" on "import_runs" ("organization_id", "created_at", "id");`);
    this.addSql(`create index "import_runs_status_lease_index" on "import_runs" ("status", "lease_expires_at");`);
  }
}
