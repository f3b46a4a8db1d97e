/**
 * Records the canvas to a WebM file with MediaRecorder (the seed's "recording
 * to a video file"). The stream follows whatever the canvas shows, WebGPU or
 * the 2D fallback, so recording survives nothing but a canvas swap; the app
 * stops the recording when it replaces the canvas.
 */

export interface Recording {
  blob: Blob;
  url: string;
  fileName: string;
  seconds: number;
}

/** The first WebM type this browser can encode, VP9 preferred. */
export function pickWebmType(isSupported: (t: string) => boolean): string | null {
  for (const t of ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm']) {
    if (isSupported(t)) return t;
  }
  return null;
}

export class CanvasRecorder {
  private recorder: MediaRecorder | null = null;
  private chunks: Blob[] = [];
  private started = 0;
  private last: Recording | null = null;

  static supported(): boolean {
    return typeof MediaRecorder !== 'undefined' && pickWebmType((t) => MediaRecorder.isTypeSupported(t)) !== null;
  }

  get recording(): boolean {
    return this.recorder !== null;
  }

  get lastRecording(): Recording | null {
    return this.last;
  }

  start(canvas: HTMLCanvasElement, fps = 60): void {
    if (this.recorder) return;
    const type = pickWebmType((t) => MediaRecorder.isTypeSupported(t));
    if (!type) throw new Error('this browser cannot record WebM video (MediaRecorder has no WebM encoder)');
    const stream = canvas.captureStream(fps);
    this.chunks = [];
    const rec = new MediaRecorder(stream, { mimeType: type, videoBitsPerSecond: 12_000_000 });
    rec.ondataavailable = (e) => {
      if (e.data.size > 0) this.chunks.push(e.data);
    };
    rec.start(250);
    this.recorder = rec;
    this.started = performance.now();
  }

  /** Stops and resolves with the finished file (also kept as lastRecording). */
  stop(sceneName = 'stackfield'): Promise<Recording | null> {
    const rec = this.recorder;
    if (!rec) return Promise.resolve(null);
    this.recorder = null;
    return new Promise((resolve) => {
      rec.onstop = () => {
        for (const t of rec.stream.getTracks()) t.stop();
        const blob = new Blob(this.chunks, { type: 'video/webm' });
        this.chunks = [];
        if (this.last) URL.revokeObjectURL(this.last.url);
        const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
        this.last = {
          blob,
          url: URL.createObjectURL(blob),
          fileName: `${sceneName}-${stamp}.webm`,
          seconds: (performance.now() - this.started) / 1000,
        };
        resolve(this.last);
      };
      rec.stop();
    });
  }
}

/** Starts a browser download of a URL under a file name. */
export function downloadUrl(url: string, fileName: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
}
