// Form controls driven from our world: values set the way a framework notices, states read.

export function setValueAndNotify(this: HTMLInputElement, value: string): boolean {
  // The native setter, so frameworks that track value changes (React) see the change.
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(this, value);
  this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return this.value === value;
}

export function checkedState(this: Element): boolean | 'mixed' | 'unsupported' {
  if (this instanceof HTMLInputElement && (this.type === 'checkbox' || this.type === 'radio')) {
    return this.indeterminate ? 'mixed' : this.checked;
  }
  const aria = this.getAttribute('aria-checked');
  if (aria === 'true') return true;
  if (aria === 'mixed') return 'mixed';
  if (aria === 'false') return false;
  return 'unsupported';
}

export function chooseOptions(this: Element, mode: string, wanted: string[]): { error?: string; selected?: string[] } {
  if (!(this instanceof HTMLSelectElement)) return { error: 'select needs a <select> element' };
  if (this.disabled) return { error: 'the <select> is disabled' };
  const options = [...this.options];
  const picked = wanted.map((w) =>
    options.find((o) => (mode === 'label' ? o.label === w || (o.textContent ?? '').trim() === w : o.value === w))
  );
  const missing = wanted.find((_, i) => !picked[i]);
  if (missing !== undefined) return { error: `no option with ${mode} ${JSON.stringify(missing)}` };
  if (picked.length > 1 && !this.multiple) return { error: 'this <select> takes a single value' };
  if (picked.some((o) => o!.disabled)) return { error: 'that option is disabled' };
  for (const option of options) option.selected = picked.includes(option);
  this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return { selected: picked.map((o) => o!.value) };
}

export function fileInputInfo(this: Element): { isFileInput: boolean; multiple: boolean } {
  return { isFileInput: this instanceof HTMLInputElement && this.type === 'file', multiple: (this as HTMLInputElement).multiple === true };
}

/** A file input's chooser cancelled: what a person's "Cancel" in the native chooser fires. */
export function dispatchCancel(this: Element): void {
  this.dispatchEvent(new Event('cancel', { bubbles: true }));
}
