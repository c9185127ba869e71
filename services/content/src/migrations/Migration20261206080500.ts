import { Migration } from "@mikro-orm/migrations";

/** A space's own merge rules (null: it inherits its organization's), checked by collaboration before a merge. */
export class Migration20261206080500 extends Migration {
  override name = "Migration20261206080500";

  override up(): void | Promise<void> {
    this.addSql(`alter table "spaces" add "merge_rules" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "spaces" drop column "merge_rules";`);
  }
}
