/**
 * Where WGSL sources come from. The shaders live as plain files in shaders/;
 * the browser build gets them through Vite (src/app/platform.ts), Node reads
 * them from disk (src/cli/nodePlatform.ts). Passes ask for a shader by file
 * name and get it with shaders/common.wgsl prepended when they ask for it.
 */
export type ShaderSourceLoader = (fileName: string) => string;

let loader: ShaderSourceLoader | null = null;

export function setShaderSourceLoader(l: ShaderSourceLoader): void {
  loader = l;
}

export function shaderSource(fileName: string, withCommon = true): string {
  if (!loader) throw new Error('no shader source loader installed (call installNodePlatform() or the browser platform setup first)');
  const body = loader(fileName);
  return withCommon ? `${loader('common.wgsl')}\n${body}` : body;
}
