import { Migration } from "@mikro-orm/migrations";

/** Spaces get GitBook's `language` (a TranslationLanguage code); existing ones have none. */
export class Migration20261206160000 extends Migration {
  override name = "Migration20261206160000";

  override up(): void | Promise<void> {
    this.addSql(`alter table "spaces" add column "language" varchar(16) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "spaces" drop column "language";`);
  }
}
