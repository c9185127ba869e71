import { Migration } from "@mikro-orm/migrations";

/** An organization's merge rules (when `merge_rules_type` is "rules"), checked by collaboration before a merge. */
export class Migration20261206053950 extends Migration {
  override name = "Migration20261206053950";

  override up(): void | Promise<void> {
    this.addSql(`alter table "organizations" add "merge_rules" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "organizations" drop column "merge_rules";`);
  }
}
