/** 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

/**
 * The files of a repository of `pages` pages in GitBook's Git Sync layout, for the Git sync
 * benchmark and tests: SUMMARY.md with sections (folders with a README, front matter, an image)
 * of up to 99 pages each (six paragraphs, relative links to the next page and the section), 20
 * assets, `.gitbook.yaml`. Page `section-S/page-P.md` is titled "Page S.P".
 */
export function gitSyncLayoutFiles(pages: number): Map<string, string | Buffer> {
  const files = new Map<string, string | Buffer>();
  const summary = ["# Table of contents", ""];
  let count = 0;
  for (let section = 0; count < pages; section++) {
    summary.push(`* [Section ${section}](section-${section}/README.md)`);
    files.set(
      `section-${section}/README.md`,
      `---\ndescription: Section ${section} of the benchmark.\n---\n\n# Section ${section}\n\n![Figure](../.gitbook/assets/figure-${section % 20}.png)\n`,
    );
    count++;
    for (let page = 0; page < 99 && count < pages; page++, count++) {
      summary.push(`  * [Page ${section}.${page}](section-${section}/page-${page}.md)`);
      const next = page < 98 ? `page-${page + 1}.md` : "README.md";
      const paragraphs = Array.from(
        { length: 6 },
        (_, index) => `Paragraph ${index} of page ${section}.${page}: some text about the topic, with **emphasis** and \`code\`.`,
      );
      files.set(
        `section-${section}/page-${page}.md`,
        `# Page ${section}.${page}\n\n${paragraphs.join("\n\n")}\n\nNext: [the next page](${next}). Up: [the section](README.md).\n`,
      );
    }
  }
  for (let index = 0; index < 20; index++) files.set(`.gitbook/assets/figure-${index}.png`, Buffer.concat([PNG, Buffer.from([index])]));
  files.set("SUMMARY.md", `${summary.join("\n")}\n`);
  files.set(".gitbook.yaml", "root: ./\n\nstructure:\n  readme: section-0/README.md\n  summary: SUMMARY.md\n");
  return files;
}
