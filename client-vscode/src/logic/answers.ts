// What the extension adds to the answers of Find Similar Passages and Check Document.
// For a document outside every workspace folder the server says itself that it is not
// checked (window/showMessage); "no similar passages found" beside it would read as if
// the document had been compared and found clean. No VS Code here: unit-tested on its own.

/** doublet.checkDocument's answer. */
export interface CheckResult {
  checked: boolean;
  diagnostics: number;
  outside?: boolean;
}

/** The message after Find Similar Passages found `count` passages, if there is one to show. */
export function afterFindSimilar(count: number, inFolder: boolean): string | undefined {
  if (count || !inFolder) {
    return undefined;
  }
  return 'Doublet: no similar passages found.';
}

/** The message after Check Document, if there is one to show. */
export function afterCheck(result: CheckResult | undefined): string | undefined {
  if (!result || result.outside) {
    return undefined; // no answer (the server stopped), or the server said why
  }
  if (!result.checked) {
    return 'Doublet: this document is not one of its folder\'s documents (include, exclude or .gitignore leave it out).';
  }
  return result.diagnostics ? undefined : 'Doublet: no passage of this document matches another file.';
}
