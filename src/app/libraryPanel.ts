/**
 * The library panel: the robots and body templates of the opened library
 * files (src/app/placing.ts), one button each. Clicking one arms it: the next
 * click in the view places an instance there and disarms it (shift-click
 * throws one from the eye and keeps it armed, for more); clicking it again,
 * or Escape, disarms it. Plain DOM, so it does not
 * depend on the control panel's widgets.
 */
import './library.css';
import { displayName } from '../util/echo.ts';
import type { LibraryItem } from './placing.ts';

export class LibraryPanel {
  readonly element: HTMLElement;
  private armedItem: LibraryItem | null = null;
  private buttons: { item: LibraryItem; button: HTMLButtonElement }[] = [];

  constructor(parent: HTMLElement, private readonly onArm: (item: LibraryItem | null) => void) {
    this.element = document.createElement('section');
    this.element.id = 'library';
    this.element.hidden = true;
    this.element.setAttribute('aria-label', 'library');
    parent.append(this.element);
    window.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.armedItem) this.arm(null);
    });
  }

  get armed(): LibraryItem | null {
    return this.armedItem;
  }

  /** Lists the items (hidden when there are none); an armed item that is gone is disarmed. */
  show(items: LibraryItem[], files: number): void {
    const el = this.element;
    el.replaceChildren();
    this.buttons = [];
    el.hidden = items.length === 0;
    if (items.length === 0) {
      if (this.armedItem) this.arm(null);
      return;
    }
    const title = document.createElement('div');
    title.className = 'lib-title';
    title.textContent = `Library (${files} file${files === 1 ? '' : 's'})`;
    el.append(title);
    for (const kind of ['robot', 'body'] as const) {
      const group = items.filter((i) => i.kind === kind);
      if (group.length === 0) continue;
      const head = document.createElement('div');
      head.className = 'lib-group';
      head.textContent = kind === 'robot' ? 'Robots' : 'Bodies';
      el.append(head);
      for (const item of group) {
        const b = document.createElement('button');
        b.type = 'button';
        b.dataset['kind'] = item.kind;
        b.dataset['name'] = item.name;
        b.textContent = displayName(item.name);
        b.title = `${displayName(item.description ?? item.name, 400)} (${displayName(item.file)}): click, then click in the view to place one; shift-click to throw one and keep placing`;
        const small = document.createElement('small');
        small.textContent = displayName(item.description ?? item.file, 400);
        b.append(small);
        b.addEventListener('click', () => this.arm(this.armedItem && same(this.armedItem, item) ? null : item));
        el.append(b);
        this.buttons.push({ item, button: b });
      }
    }
    const hint = document.createElement('div');
    hint.className = 'lib-hint';
    hint.textContent = 'click an item, then click in the view: place one · shift-click: throw, and keep it for more · Esc: cancel';
    el.append(hint);
    if (this.armedItem && !items.some((i) => same(i, this.armedItem!))) this.arm(null);
    else this.arm(this.armedItem);
  }

  arm(item: LibraryItem | null): void {
    this.armedItem = item;
    for (const { item: i, button } of this.buttons) button.classList.toggle('armed', !!item && same(i, item));
    this.onArm(item);
  }
}

function same(a: LibraryItem, b: LibraryItem): boolean {
  return a.kind === b.kind && a.name === b.name;
}
