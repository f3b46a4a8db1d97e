/**
 * A minimal PNG decoder for the end-to-end tests (Chromium screenshots:
 * 8-bit RGB or RGBA, not interlaced), so pixel statistics need no image
 * library. Returns RGBA bytes.
 */
import { inflateSync } from 'node:zlib';

export interface Image {
  width: number;
  height: number;
  rgba: Uint8Array;
}

export function decodePng(buf: Uint8Array): Image {
  const sig = [137, 80, 78, 71, 13, 10, 26, 10];
  if (!sig.every((b, i) => buf[i] === b)) throw new Error('not a PNG');
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let off = 8;
  let width = 0, height = 0, colorType = 0, bitDepth = 0, interlace = 0;
  const idat: Uint8Array[] = [];
  while (off < buf.length) {
    const len = dv.getUint32(off);
    const type = String.fromCharCode(...buf.subarray(off + 4, off + 8));
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = dv.getUint32(off + 8);
      height = dv.getUint32(off + 12);
      bitDepth = data[8]!;
      colorType = data[9]!;
      interlace = data[12]!;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    off += 12 + len;
  }
  if (bitDepth !== 8 || (colorType !== 2 && colorType !== 6) || interlace !== 0) {
    throw new Error(`unsupported PNG: bit depth ${bitDepth}, colour type ${colorType}, interlace ${interlace}`);
  }
  const bpp = colorType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const px = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]!;
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const o = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? px[o + x - bpp]! : 0;
      const b = y > 0 ? px[o - stride + x]! : 0;
      const c = x >= bpp && y > 0 ? px[o - stride + x - bpp]! : 0;
      let v = src[x]!;
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      px[o + x] = v & 255;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    rgba[4 * i] = px[bpp * i]!;
    rgba[4 * i + 1] = px[bpp * i + 1]!;
    rgba[4 * i + 2] = px[bpp * i + 2]!;
    rgba[4 * i + 3] = bpp === 4 ? px[bpp * i + 3]! : 255;
  }
  return { width, height, rgba };
}

/** Variance of the luminance (0..255 scale): near 0 for a blank or flat picture. */
export function lumaVariance(img: Image): number {
  let s = 0, s2 = 0;
  const n = img.width * img.height;
  for (let i = 0; i < n; i++) {
    const l = 0.299 * img.rgba[4 * i]! + 0.587 * img.rgba[4 * i + 1]! + 0.114 * img.rgba[4 * i + 2]!;
    s += l;
    s2 += l * l;
  }
  const m = s / n;
  return s2 / n - m * m;
}

/** Mean absolute difference per channel (0..255) between two pictures of the same size. */
export function meanAbsDiff(a: Image, b: Image): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error('pictures differ in size');
  let s = 0;
  for (let i = 0; i < a.rgba.length; i++) if ((i & 3) !== 3) s += Math.abs(a.rgba[i]! - b.rgba[i]!);
  return s / ((a.rgba.length / 4) * 3);
}
