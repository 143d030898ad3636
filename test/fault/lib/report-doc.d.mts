// Types of report-doc.mjs (plain JavaScript: run.mjs runs it without a TypeScript loader).
export interface ReportRun {
  intro: string[];
  runLines: string[];
  header: string[];
  rows: Map<string, string>;
  sections: { id: string; title: string; text: string }[];
  defects: string;
}
export function mergeReport(doc: string, run: ReportRun): string;
