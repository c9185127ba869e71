import { Migration } from "@mikro-orm/migrations";

/** Git syncs get a connection for Git Sync both ways and its sealed credentials and webhook secret; existing ones are not connected. */
export class Migration20261206170000 extends Migration {
  override name = "Migration20261206170000";

  override up(): void | Promise<void> {
    this.addSql(`alter table "git_syncs" add column "connection" jsonb null, add column "secrets_ciphertext" bytea null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "git_syncs" drop column "connection", drop column "secrets_ciphertext";`);
  }
}
