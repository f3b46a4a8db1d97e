/**
 * The robot editor (docs/LIBRARY_FORMAT.md, "The editor"; seed 003 4.1 and
 * 4.3): bodies from a built-in shape or an OBJ file, with a density or a
 * mass and a material, joined by hinges (with an optional motor) or ball
 * joints; checked as `stackfield check` checks a library, tried in the view
 * (a floor and one instance, with the motor panel's sliders), and saved as
 * a `stackfield-library/1` download. The state -> library part is
 * editorModel.ts. Plain DOM, like the library panel.
 */
import './library.css';
import type { Vec3 } from '../geometry/mesh.ts';
import { checkEditorLibrary, EDITOR_MATERIALS, editorLibraryText, tryScene, type EditorShape, type EditorState } from './editorModel.ts';

/** "x y z" or "x, y, z" -> a vector, or an Error naming the field. */
function vec3(text: string, field: string): Vec3 {
  const parts = text.trim().split(/[\s,]+/).map(Number);
  if (parts.length !== 3 || parts.some((x) => !Number.isFinite(x))) throw new Error(`${field}: expected three numbers like "0 0.1 0", got "${text}"`);
  return parts as Vec3;
}

function num(text: string, field: string): number {
  const x = Number(text);
  if (text.trim() === '' || !Number.isFinite(x)) throw new Error(`${field}: expected a number, got "${text}"`);
  return x;
}

export class EditorPanel {
  readonly element: HTMLDetailsElement;
  readonly state: EditorState = { robot: 'myRobot', description: '', bodies: [], joints: [] };
  private readonly status: HTMLElement;
  private readonly list: HTMLElement;
  private readonly selA: HTMLSelectElement;
  private readonly selB: HTMLSelectElement;
  private objFile: { name: string; text: string } | null = null;

  /** `onTry`: open these files as if dropped (the library, the scene that places it, its OBJ files). */
  constructor(parent: HTMLElement, private readonly onTry: (files: File[]) => Promise<boolean>) {
    const el = (this.element = document.createElement('details'));
    el.id = 'editor';
    el.innerHTML = `<summary>Robot editor</summary>
<label>robot <input name="robot" value="myRobot" size="10"></label>
<label>description <input name="description" size="16"></label>
<fieldset><legend>body</legend>
<label>name <input name="bname" value="b0" size="6"></label>
<label>shape <select name="shape"><option>box</option><option>sphere</option><option>cylinder</option><option value="mesh">OBJ file</option></select></label>
<label title="box: full size x y z; sphere: radius; cylinder: radius height">size <input name="size" value="0.4 0.1 0.3" size="12"></label>
<input name="obj" type="file" accept=".obj" hidden>
<label><select name="massMode"><option>density</option><option>mass</option></select> <input name="massValue" value="500" size="6"></label>
<label>material <select name="material">${Object.keys(EDITOR_MATERIALS).map((m) => `<option>${m}</option>`).join('')}</select></label>
<label>position <input name="position" value="0 0.05 0" size="12"></label>
<button type="button" data-act="body">Add body</button></fieldset>
<fieldset><legend>joint</legend>
<label><select name="jtype"><option>hinge</option><option>ball</option></select></label>
<label>A <select name="bodyA"></select></label> <label>B <select name="bodyB"></select></label>
<label>pivot <input name="pivot" value="0.2 0.05 0" size="12"></label>
<label>axis <input name="axis" value="0 0 1" size="8"></label>
<label><input name="motor" type="checkbox"> motor</label>
<label>rad/s <input name="speed" value="2" size="4"></label> <label>max N m <input name="maxTorque" value="10" size="4"></label>
<button type="button" data-act="joint">Join</button></fieldset>
<div class="ed-list"></div>
<button type="button" data-act="check">Check</button> <button type="button" data-act="try">Try in the view</button> <button type="button" data-act="save">Save library</button>
<div class="ed-status" role="status"></div>`;
    parent.append(el);
    this.status = el.querySelector('.ed-status')!;
    this.list = el.querySelector('.ed-list')!;
    this.selA = this.field('bodyA') as HTMLSelectElement;
    this.selB = this.field('bodyB') as HTMLSelectElement;
    const shape = this.field('shape') as HTMLSelectElement;
    const obj = this.field('obj') as HTMLInputElement;
    shape.addEventListener('change', () => {
      obj.hidden = shape.value !== 'mesh';
      const size = this.field('size') as HTMLInputElement;
      size.value = shape.value === 'box' ? '0.4 0.1 0.3' : shape.value === 'sphere' ? '0.1' : shape.value === 'cylinder' ? '0.1 0.05' : '1';
      size.title = shape.value === 'mesh' ? 'scale' : 'box: full size x y z; sphere: radius; cylinder: radius height';
    });
    obj.addEventListener('change', () => {
      const f = obj.files?.[0];
      if (f) void f.text().then((text) => (this.objFile = { name: f.name, text }));
    });
    el.addEventListener('click', (e) => {
      const act = (e.target as HTMLElement).dataset['act'];
      if (act) void this.act(act, (e.target as HTMLElement).dataset['index']);
    });
    this.refresh();
  }

  private field(name: string): HTMLInputElement | HTMLSelectElement {
    return this.element.querySelector(`[name="${name}"]`)!;
  }

  private value(name: string): string {
    return this.field(name).value;
  }

  private say(text: string, bad = false): void {
    this.status.textContent = text;
    this.status.classList.toggle('bad', bad);
  }

  private get fileName(): string {
    return `${this.state.robot}.library.json`;
  }

  private readShape(): EditorShape {
    const kind = this.value('shape');
    const size = this.value('size');
    if (kind === 'box') return { type: 'box', size: vec3(size, 'size') };
    if (kind === 'sphere') return { type: 'sphere', radius: num(size, 'radius') };
    if (kind === 'cylinder') {
      const [r, h] = size.trim().split(/[\s,]+/);
      return { type: 'cylinder', radius: num(r ?? '', 'radius'), height: num(h ?? '', 'height') };
    }
    if (!this.objFile) throw new Error('choose an OBJ file first');
    return { type: 'mesh', file: this.objFile.name, text: this.objFile.text, scale: num(size, 'scale') };
  }

  private async act(act: string, index?: string): Promise<void> {
    try {
      this.state.robot = this.value('robot').trim() || 'myRobot';
      this.state.description = this.value('description').trim();
      const s = this.state;
      if (act === 'body') {
        const name = this.value('bname').trim();
        if (!name || s.bodies.some((b) => b.name === name)) throw new Error(`body name "${name}" is empty or already used`);
        s.bodies.push({
          name,
          shape: this.readShape(),
          massMode: this.value('massMode') === 'mass' ? 'mass' : 'density',
          massValue: num(this.value('massValue'), this.value('massMode')),
          material: this.value('material'),
          position: vec3(this.value('position'), 'position'),
        });
        (this.field('bname') as HTMLInputElement).value = `b${s.bodies.length}`;
      } else if (act === 'joint') {
        const motor = (this.field('motor') as HTMLInputElement).checked;
        const type = this.value('jtype') === 'ball' ? 'ball' : 'hinge';
        if (!this.selA.value || this.selA.value === this.selB.value) throw new Error('a joint joins two different bodies: add a second body, then choose A and B');
        if (motor && type !== 'hinge') throw new Error('a motor drives a hinge: choose "hinge"');
        s.joints.push({
          name: `j${s.joints.length}`,
          type,
          bodyA: this.selA.value,
          bodyB: this.selB.value,
          pivot: vec3(this.value('pivot'), 'pivot'),
          axis: vec3(this.value('axis'), 'axis'),
          ...(motor ? { motor: { speed: num(this.value('speed'), 'rad/s'), maxTorque: num(this.value('maxTorque'), 'max torque') } } : {}),
        });
      } else if (act === 'delBody') {
        s.bodies.splice(Number(index), 1);
      } else if (act === 'delJoint') {
        s.joints.splice(Number(index), 1);
      } else if (act === 'check') {
        this.say(`${this.fileName}: ok: ${await checkEditorLibrary(s, this.fileName)}`);
      } else if (act === 'try' || act === 'save') {
        await checkEditorLibrary(s, this.fileName);
        const lib = new File([editorLibraryText(s)], this.fileName, { type: 'application/json' });
        if (act === 'save') {
          download(lib);
          const objs = s.bodies.flatMap((b) => (b.shape.type === 'mesh' ? [b.shape.file] : []));
          this.say(`saved ${this.fileName}${objs.length ? `; keep ${objs.join(', ')} beside it` : ''}`);
        } else {
          const scene = new File([JSON.stringify(tryScene(s, this.fileName))], `${s.robot}-try.scene.json`, { type: 'application/json' });
          const meshes = s.bodies.flatMap((b) => (b.shape.type === 'mesh' ? [new File([b.shape.text], b.shape.file)] : []));
          if (await this.onTry([scene, lib, ...meshes])) this.say(`trying ${s.robot}: its motors are in the motor panel`);
        }
      }
      if (act !== 'check' && act !== 'try' && act !== 'save') this.say('');
      this.refresh();
    } catch (e) {
      this.say(e instanceof Error ? e.message : String(e), true);
    }
  }

  /** The lists of bodies and joints, and the joint form's body choices. */
  private refresh(): void {
    const s = this.state;
    const names = s.bodies.map((b) => b.name);
    for (const [sel, pick] of [[this.selA, 0], [this.selB, 1]] as const) {
      const keep = sel.value;
      sel.replaceChildren(...names.map((n) => Object.assign(document.createElement('option'), { textContent: n, value: n })));
      sel.value = names.includes(keep) ? keep : names[Math.min(pick, names.length - 1)] ?? '';
    }
    if (this.selA.value === this.selB.value && names.length > 1) this.selB.value = names.find((n) => n !== this.selA.value)!;
    const rows: HTMLElement[] = [];
    const row = (text: string, act: string, i: number) => {
      const d = document.createElement('div');
      d.textContent = text + ' ';
      const x = Object.assign(document.createElement('button'), { type: 'button', textContent: '×', title: 'remove' });
      x.dataset['act'] = act;
      x.dataset['index'] = String(i);
      d.append(x);
      rows.push(d);
    };
    s.bodies.forEach((b, i) => row(`${b.name}: ${b.shape.type}, ${b.massMode} ${b.massValue}, ${b.material}, at ${b.position.join(' ')}`, 'delBody', i));
    s.joints.forEach((j, i) => row(`${j.name}: ${j.type} ${j.bodyA}–${j.bodyB} at ${j.pivot.join(' ')}${j.motor ? `, motor ${j.motor.speed} rad/s, ${j.motor.maxTorque} N m` : ''}`, 'delJoint', i));
    this.list.replaceChildren(...rows);
  }
}

/** Offers a file as a download. */
function download(f: File): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(f);
  a.download = f.name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}
