/**
 * Where the page writers used to live, kept so that older imports resolve.
 * The write path is now lib/writing/write-page-pipeline.ts and `ensurePage`
 * is lib/writing/ensure-page.ts; new code imports those (and
 * `folderOfType` from page-folders.ts) directly.
 */
export {
  type EnsurePageInput,
  type EnsurePageResult,
  ensurePage,
} from "../writing/ensure-page.ts";
export { folderOfType } from "./page-folders.ts";
