// The in-page module: everything pagewire runs inside a page, in a context of its isolated world.
// browser/page-module.ts turns it into one source, installs it once per context and calls its
// functions by name. Every function here is self-contained but for the DOM and the other names
// of this module (PAGE_API and PAGE_HELPERS), which are in scope wherever it runs: nothing else
// of the server is.
import { drawMarks } from './annotate.ts';
import { axProbes } from './ax-probes.ts';
import { armCondition, conditionHolds, expectText, onEveryChange, takeConditionWatch, waitInPage } from './conditions.ts';
import { factBits, pageFacts, pseudoFacts } from './facts.ts';
import { findInPage } from './find.ts';
import { checkedState, chooseOptions, dispatchCancel, fileInputInfo, setValueAndNotify } from './controls.ts';
import { focusAndPrepare, focusPrepared } from './focus.ts';
import { isSameConnectedNode } from './identity.ts';
import { maskInPage, restoreInPage } from './masks.ts';
import { mainContent, markdownMarks, MarkdownWalk, pageMarkdown } from './markdown.ts';
import { addCssReach, ChangeMonitor, controlSignature, flatParent, settleThenTake, takeChanges, watchRoot } from './monitor.ts';
import {
  blockerOf,
  clickReaches,
  coversAt,
  dismissOf,
  flatTreeParent,
  labelsOf,
  originatingElement,
  pinnedAbove,
  scrollIntoCenter,
} from './pointer.ts';
import { armedInputHandled, armInputWait, settle, settleInPage } from './settle.ts';
import { worldState } from './world.ts';

/** The functions the server calls by name. */
export const PAGE_API = {
  armCondition,
  armInputWait,
  axProbes,
  blockerOf,
  checkedState,
  chooseOptions,
  clickReaches,
  coversAt,
  dispatchCancel,
  dismissOf,
  drawMarks,
  expectText,
  fileInputInfo,
  findInPage,
  focusPrepared,
  isSameConnectedNode,
  labelsOf,
  maskInPage,
  originatingElement,
  pageFacts,
  pageMarkdown,
  pseudoFacts,
  restoreInPage,
  scrollIntoCenter,
  setValueAndNotify,
  settle,
  settleThenTake,
  takeChanges,
  takeConditionWatch,
  waitInPage,
  watchRoot,
};

/** What those functions use from one another besides themselves: in scope, not called by name. */
export const PAGE_HELPERS = {
  addCssReach,
  armedInputHandled,
  ChangeMonitor,
  conditionHolds,
  controlSignature,
  factBits,
  flatParent,
  flatTreeParent,
  focusAndPrepare,
  mainContent,
  MarkdownWalk,
  markdownMarks,
  onEveryChange,
  pinnedAbove,
  settleInPage,
  worldState,
};

export type PageApi = typeof PAGE_API;

export type { Mark, MarkStyle } from './annotate.ts';
export type { Focused, Preparation } from './focus.ts';
export { factBits } from './facts.ts';
export { markdownMarks } from './markdown.ts';
export type { MarkdownAnswer } from './markdown.ts';
export type { FactRecord, FactsAnswer, PseudoFact } from './facts.ts';
export type { FoundAnswer, FoundRecord } from './find.ts';
export type { MonitorSummary } from './monitor.ts';
export type { PseudoElement, Reach } from './pointer.ts';
