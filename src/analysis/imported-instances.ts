/**
 * Clients built in another file of the project and used here: `import { kafkaClient } from
 * '@app/kafka'` where that module (through its re-exports) holds `export const kafkaClient = new
 * Kafka({...})`. A descriptor that declares the facet reads the calls made here on the instance
 * with the construction's options as written there. Findings land in this file, at the calls.
 *
 * The cost stays with the files that may need it: an imported name is followed only when this file
 * calls one of a descriptor's methods on it (`kafkaClient.producer(...)`), and the other file is
 * read through the shared module reader (parsed once per version of the file, bounded cache).
 * Whatever cannot be read (a package, an unreadable file, an instance built by a factory) is no site.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, unwrap } from './ast.js';
import type { AnalysisContext, ImportedInstance, LibraryDescriptor } from './library.js';
import type { RetrySite } from './model.js';
import { isFollowable } from './wrappers/index.js';

/** The descriptors that read imported instances, and the methods they read, once per catalogue. */
const readersOf = new WeakMap<readonly LibraryDescriptor[], { readers: LibraryDescriptor[]; methods: ReadonlySet<string> }>();

export function findImportedInstanceSites(ctx: AnalysisContext, libraries: readonly LibraryDescriptor[]): RetrySite[] {
  let known = readersOf.get(libraries);
  if (!known) {
    const readers = libraries.filter((l) => l.importedInstances);
    known = { readers, methods: new Set(readers.flatMap((l) => l.importedInstances!.methods)) };
    readersOf.set(libraries, known);
  }
  const { readers, methods } = known;
  if (readers.length === 0 || !ctx.importedValue || !mayCallMethod(ctx.sourceCode.text, methods)) return [];
  const found = new Map<LibraryDescriptor, ImportedInstance[]>();
  for (const binding of ctx.imports.bindings) {
    // The calls first: most imported names are never called with a method a descriptor reads.
    if (binding.path.includes('.') || !binding.variable.references.some((r) => calledMethod(r.identifier as TSESTree.Identifier, methods))) continue;
    if (!isFollowable(binding.module)) continue;
    const references = binding.variable.references.map((r) => r.identifier as TSESTree.Identifier).filter((id) => calledMethod(id, methods));
    const imported = ctx.importedValue(references[0]!);
    const construction = imported && constructionOf(imported.node, imported.ctx);
    if (!construction) continue;
    const ref = imported.ctx.imports.resolve(unwrap(construction.callee));
    if (!ref) continue;
    for (const library of readers) {
      const facet = library.importedInstances!;
      const ofLibrary = library.modules.includes(ref.module) || !!library.matchModule?.(ref.module);
      if (!ofLibrary || !facet.constructors.includes(ref.path)) continue;
      const list = found.get(library) ?? [];
      list.push({ path: ref.path, construction, ctx: imported.ctx, references });
      found.set(library, list);
    }
  }
  const sites: RetrySite[] = [];
  for (const [library, instances] of found) sites.push(...library.importedInstances!.find(instances, ctx));
  return sites;
}

/**
 * Whether the text may hold a call of one of `methods` (a few words, `producer`): every site here
 * starts from a member `name.method(...)` (calledMethod), whose property is spelt in the text as
 * the name itself or with a `\u` escape. A file with neither (nearly all) has no such call, and
 * is settled by a substring search or two instead of a look at every reference of every import.
 */
function mayCallMethod(text: string, methods: ReadonlySet<string>): boolean {
  for (const m of methods) if (text.includes(m)) return true;
  return text.includes('\\u');
}

/** `name.method(...)` with `method` one of `methods`. */
function calledMethod(id: TSESTree.Identifier, methods: ReadonlySet<string>): boolean {
  const m = id.parent;
  if (m?.type !== T.MemberExpression || m.object !== id || m.computed || m.property.type !== T.Identifier) return false;
  return methods.has(m.property.name) && m.parent?.type === T.CallExpression && m.parent.callee === m;
}

/** `new C(...)` as exported, directly or through a const of that file. */
function constructionOf(raw: TSESTree.Node, ctx: AnalysisContext): TSESTree.NewExpression | undefined {
  let node = unwrap(raw);
  if (node.type === T.Identifier) {
    const init = constInitializer(ctx.evaluator.variableOf(node));
    node = init ? unwrap(init) : node;
  }
  return node.type === T.NewExpression ? node : undefined;
}
