/**
 * Scene files the user dropped or picked, kept for the tab so a reload
 * shows the same scene: the File objects go into IndexedDB under an id that
 * sessionStorage keeps for this tab (both survive a reload; a new tab has
 * its own id). Only the latest few tabs' files are kept.
 *
 * Any failure (private mode, storage full, no IndexedDB) makes `save` say
 * false and `load` null; the app then tells the user the files are gone.
 */

const DB = 'stackfield';
const STORE = 'dropped-files';
const TAB_KEY = 'stackfield.tab';
/** Tabs whose files are kept; older entries are deleted on save. */
const KEEP = 4;

interface Entry {
  tab: string;
  savedAt: number;
  /** The scene file's name (one of `files`). */
  scene: string;
  files: File[];
}

function tabId(): string {
  let id = sessionStorage.getItem(TAB_KEY);
  if (!id) {
    id = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    sessionStorage.setItem(TAB_KEY, id);
  }
  return id;
}

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'tab' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

/** Keeps the files of this tab's scene; false when the browser would not store them. */
export async function saveDroppedFiles(scene: string, files: readonly File[]): Promise<boolean> {
  try {
    const db = await open();
    try {
      const tx = db.transaction(STORE, 'readwrite');
      const store = tx.objectStore(STORE);
      store.put({ tab: tabId(), savedAt: Date.now(), scene, files: [...files] } satisfies Entry);
      const all = await request<Entry[]>(store.getAll());
      all.sort((a, b) => b.savedAt - a.savedAt);
      for (const old of all.slice(KEEP)) store.delete(old.tab);
      await done(tx);
      return true;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

/** This tab's kept files for the scene file `scene`, or null. */
export async function loadDroppedFiles(scene: string): Promise<File[] | null> {
  try {
    const id = sessionStorage.getItem(TAB_KEY);
    if (!id) return null;
    const db = await open();
    try {
      const entry = await request<Entry | undefined>(db.transaction(STORE, 'readonly').objectStore(STORE).get(id));
      return entry && entry.scene === scene ? entry.files : null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

function request<T>(r: IDBRequest): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result as T);
    r.onerror = () => reject(r.error);
  });
}
