/**
 * The API reference, docs/api/README.md, generated from the TSDoc comments of
 * the package's entry point (src/index.ts) with the TypeScript compiler's own
 * API: every export in source order, its signature as the compiler prints it,
 * and its comment. Classes and interfaces list their public members.
 *
 *   npm run docs:api      # write docs/api/README.md (npm run build:lib and npm pack do too)
 *
 * The file is generated, not committed (so it cannot go stale as the engine's
 * interfaces change), and ships in the package. A small generator of our own
 * rather than a documentation tool: the output is one Markdown page, and no
 * dependency is added for it.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = join(ROOT, 'src', 'index.ts');
export const API_DOC = join(ROOT, 'docs', 'api', 'README.md');

/** {@link X} -> `X` */
function links(text: string): string {
  return text.replace(/\{@link\s+([^}\s]+)\s*\}/g, '`$1`');
}

function docOf(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  return links(ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim());
}

function examplesOf(symbol: ts.Symbol, checker: ts.TypeChecker): string[] {
  return symbol
    .getJsDocTags(checker)
    .filter((t) => t.name === 'example')
    .map((t) => ts.displayPartsToString(t.text).trim());
}

/** The declaration as a reader wants to see it: one line per signature or member. */
function signatureOf(name: string, symbol: ts.Symbol, checker: ts.TypeChecker): string[] {
  const decl = symbol.declarations?.[0];
  if (!decl) return [];
  const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;
  if (ts.isFunctionDeclaration(decl)) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, decl);
    return type.getCallSignatures().map((s) => `function ${name}${checker.signatureToString(s, decl, flags)}`);
  }
  if (ts.isVariableDeclaration(decl)) {
    return [`const ${name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, decl), decl, flags)}`];
  }
  if (ts.isTypeAliasDeclaration(decl)) {
    return [`type ${name} = ${decl.type.getText()}`];
  }
  if (ts.isClassDeclaration(decl)) return [`class ${name}`];
  if (ts.isInterfaceDeclaration(decl)) return [`interface ${name}`];
  return [name];
}

/** Public members of a class or interface with their types and comments. */
function membersOf(symbol: ts.Symbol, checker: ts.TypeChecker): string[] {
  const decl = symbol.declarations?.[0];
  if (!decl || !(ts.isClassDeclaration(decl) || ts.isInterfaceDeclaration(decl))) return [];
  const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;
  const out: string[] = [];
  for (const m of decl.members) {
    const mods = ts.canHaveModifiers(m) ? (ts.getModifiers(m) ?? []) : [];
    if (mods.some((x) => x.kind === ts.SyntaxKind.PrivateKeyword || x.kind === ts.SyntaxKind.ProtectedKeyword)) continue;
    if (m.name && ts.isPrivateIdentifier(m.name)) continue;
    const ms = m.name ? checker.getSymbolAtLocation(m.name) : undefined;
    let line: string;
    if (ts.isConstructorDeclaration(m)) {
      const sig = checker.getSignatureFromDeclaration(m);
      line = `new ${symbol.name}${sig ? checker.signatureToString(sig, m, flags) : '()'}`;
    } else if (!ms) {
      continue;
    } else if (ts.isMethodDeclaration(m) || ts.isMethodSignature(m)) {
      const sig = checker.getSignatureFromDeclaration(m);
      line = `${ms.name}${sig ? checker.signatureToString(sig, m, flags) : '()'}`;
    } else if (ts.isGetAccessorDeclaration(m)) {
      line = `get ${ms.name}(): ${checker.typeToString(checker.getTypeOfSymbolAtLocation(ms, m), m, flags)}`;
    } else if (ts.isPropertyDeclaration(m) || ts.isPropertySignature(m)) {
      const ro = mods.some((x) => x.kind === ts.SyntaxKind.ReadonlyKeyword) ? 'readonly ' : '';
      const opt = m.questionToken ? '?' : '';
      line = `${ro}${ms.name}${opt}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(ms, m), m, flags)}`;
    } else {
      continue;
    }
    const doc = ms ? docOf(ms, checker).replace(/\s*\n\s*/g, ' ') : '';
    out.push(`- \`${line}\`${doc ? ` — ${doc}` : ''}`);
  }
  return out;
}

/** The reference as Markdown. */
export function generateApiDoc(): string {
  const program = ts.createProgram([ENTRY], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    types: ['@webgpu/types', 'node'],
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(ENTRY)!;
  const moduleSymbol = checker.getSymbolAtLocation(source)!;
  const fileDocs = ts.getJSDocCommentsAndTags(source.statements[0]!).filter(ts.isJSDoc);
  const fileDoc = fileDocs.map((d) => ts.getTextOfJSDocComment(d.comment) ?? '').join('\n');
  const fileExamples = fileDocs.flatMap((d) => (d.tags ?? []).filter((t) => t.tagName.text === 'example').map((t) => ts.getTextOfJSDocComment(t.comment) ?? ''));
  const lines: string[] = [
    '# Stackfield API reference',
    '',
    '<!-- Generated by scripts/api-docs.ts from the TSDoc comments of src/index.ts (npm run docs:api); do not edit. -->',
    '',
    links(fileDoc.trim()),
    '',
    ...fileExamples.map((e) => e.trim()),
    '',
  ];
  // Exports in the order the entry point lists them (a re-export's place is its export specifier).
  const exports = checker.getExportsOfModule(moduleSymbol);
  const position = (s: ts.Symbol): number => s.declarations?.find((d) => d.getSourceFile() === source)?.getStart() ?? 0;
  const sorted = [...exports].sort((a, b) => position(a) - position(b));
  const functions: string[] = [];
  const types: string[] = [];
  for (const exported of sorted) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const name = exported.name;
    const decl = symbol.declarations?.[0];
    const from = decl ? decl.getSourceFile().fileName.slice(ROOT.length + 1) : '';
    const section: string[] = [`### ${name}`, ''];
    section.push('```ts', ...signatureOf(name, symbol, checker), '```', '');
    const doc = docOf(symbol, checker);
    if (doc) section.push(doc.replace(/^@example[\s\S]*$/m, '').trim(), '');
    for (const ex of examplesOf(symbol, checker)) section.push(ex, '');
    const members = membersOf(symbol, checker);
    if (members.length) section.push(...members, '');
    // The package ships lib/ (declarations beside the compiled code), not src/.
    section.push(`Declared in \`${from.replace(/^src\//, 'lib/').replace(/\.ts$/, '.d.ts')}\`.`, '');
    const isValue = decl && (ts.isFunctionDeclaration(decl) || ts.isVariableDeclaration(decl) || ts.isClassDeclaration(decl));
    (isValue ? functions : types).push(...section);
  }
  lines.push('## Functions, classes and constants', '', ...functions, '## Types', '', ...types);
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  mkdirSync(dirname(API_DOC), { recursive: true });
  writeFileSync(API_DOC, generateApiDoc());
  process.stdout.write(`wrote ${API_DOC.slice(ROOT.length + 1)}\n`);
}
