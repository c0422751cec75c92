// page.pdf (PROTOCOL.md §10).
import { z } from 'zod';
import { sessionIdField, targetIdField } from './fields.ts';
import { wireMethod } from './method.ts';

/** The named sheets page.pdf prints on (their sizes are in PROTOCOL.md §10 and src/capture/pdf.ts). */
export const PDF_PAPERS = ['letter', 'legal', 'tabloid', 'a5', 'a4', 'a3'] as const;
export type PdfPaper = (typeof PDF_PAPERS)[number];

/** `N` or `N-M`, pages counted from 1, separated by commas: what a print dialog takes. */
const PAGE_RANGES = /^\s*[1-9]\d{0,5}(\s*-\s*[1-9]\d{0,5})?(\s*,\s*[1-9]\d{0,5}(\s*-\s*[1-9]\d{0,5})?)*\s*$/;

export const pageRangesField = z
  .string()
  .max(200)
  .regex(PAGE_RANGES, 'page numbers from 1 and N-M ranges, separated by commas, like "1-3, 5"')
  .superRefine((ranges, ctx) => {
    for (const part of ranges.split(',')) {
      const [from, to] = part.split('-').map((n) => Number(n.trim()));
      if (to !== undefined && from !== undefined && to < from) {
        ctx.addIssue({ code: 'custom', message: `the range ${part.trim()} ends before it starts` });
      }
    }
  });

export const pagePdf = wireMethod({
  name: 'page.pdf',
  summary: "Print a tab to a PDF file in the session's downloads folder, with password inputs and secrets masked.",
  params: z
    .object({
      session_id: sessionIdField,
      target_id: targetIdField,
      landscape: z.boolean().optional().describe('Landscape (default portrait)'),
      paper: z.enum(PDF_PAPERS).optional().describe('Sheet size (default letter)'),
      ranges: pageRangesField.optional().describe('Pages, like "1-3, 5" (default all)'),
    })
    .strict(),
  result: z.object({
    path: z.string().describe("The PDF's absolute path, in the session's downloads folder"),
    size: z.number().int().min(0).describe('Its length in bytes'),
    pages: z.number().int().min(0).describe('The number of pages in it'),
  }),
});
