/**
 * The first two steps of reading `resilience4j`: the key tree (modules, `instances`/`configs`,
 * blocks, their properties; unknown and misplaced keys), then each property bound to its Java type
 * the way Spring Boot binds it, with the check Resilience4j's setter makes. `base-config` chains are
 * resolved on demand, per module, as each starter resolves them.
 */
import { MODULES, MODULE_KEYS, OTHER_MODULES, type KeyInfo, type ModuleInfo, type ModuleName } from './keys.js';
import { problem, type ConfigProblem, type MessageCode } from './messages.js';
import { UNKNOWN, describe, isKnown, joinPath, pathOf, uniform, type ConfigProperty, type KeySegment, type ListItem, type Maybe, type PropertyValue } from './source.js';
import { bindBoolean, bindClassList, bindDouble, bindDuration, bindEnum, bindInteger, bindText, type BindResult } from './values.js';

export interface ReadOptions {
  /**
   * `runtime`: the object is all there is, so a `${placeholder}` and a missing base-config are errors.
   * `lint`: a placeholder is resolved by Spring from the environment and stays unknown, and a
   * base-config may live in another file when this one defines no configs of that module.
   */
  readonly mode: 'runtime' | 'lint';
  /** A profile file (`application-prod.yml`): what it leaves out is set elsewhere, so unknown, not the default. */
  readonly partial?: boolean | undefined;
}

export interface Item<P> extends ListItem<P> {
  readonly path: string;
}

export type BoundValue<P> = number | boolean | string | readonly Item<P>[];

export interface Prop<P> {
  readonly key: KeyInfo;
  readonly path: string;
  /** The property as written, key through value. */
  readonly at: P;
  /** Spring's value; UNKNOWN for a placeholder (lint) or a value Spring refuses. */
  readonly value: Maybe<BoundValue<P>>;
  /** How the value was written, for messages. */
  readonly text: string;
}

export interface Block<P> {
  readonly module: ModuleInfo;
  readonly group: 'instances' | 'configs';
  readonly name: string;
  readonly path: string;
  /** Where the block's name is written (in the highest layer that mentions it). */
  at: P;
  /** Bound properties, by relaxed name. */
  readonly props: Map<string, Prop<P>>;
  /** Layers (documents) that write into the block. */
  readonly layers: Set<number>;
}

export interface Chain<P> {
  /** The block, then the blocks it inherits from, nearest first. */
  readonly blocks: readonly Block<P>[];
  /** False when a base is in another file, a placeholder, or the file is a profile overlay: unset means unknown. */
  readonly complete: boolean;
}

/** Problems in order of discovery; a key path is reported once even when several blocks inherit it. */
export class Problems<P> {
  readonly list: ConfigProblem<P>[] = [];
  readonly #seen = new Set<string>();

  add(code: MessageCode, path: string, at: P | undefined, data?: Readonly<Record<string, string | number>>): void {
    const p = problem(code, path, at, data);
    const key = `${p.path}\u0000${p.message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.list.push(p);
  }
}

interface Written<P> {
  readonly property: ConfigProperty<P>;
  readonly key: KeyInfo;
  readonly path: string;
  readonly layer: number;
  /** For a list written key by key: its items, by index. */
  readonly indexed?: Map<number, ConfigProperty<P>>;
}

interface PendingBlock<P> {
  readonly block: Block<P>;
  readonly groupKey: string;
  readonly written: Map<string, Written<P>>;
  atLayer: number;
}

export class Resilience4jTree<P> {
  readonly problems = new Problems<P>();
  readonly warnings = new Problems<P>();
  readonly blocks: Block<P>[] = [];
  readonly #byKey = new Map<string, PendingBlock<P>>();
  readonly #chains = new Map<Block<P>, Chain<P>>();

  constructor(
    properties: Iterable<ConfigProperty<P>>,
    readonly options: ReadOptions,
  ) {
    for (const property of properties) this.#place(property);
    for (const pending of this.#byKey.values()) this.#bind(pending);
  }

  block(module: ModuleName, group: 'instances' | 'configs', name: string): Block<P> | undefined {
    return this.#byKey.get(`${module}\u0000${group}\u0000${name}`)?.block;
  }

  hasConfigs(module: ModuleName): boolean {
    return this.blocks.some((b) => b.module.name === module && b.group === 'configs');
  }

  // ---- step 1: the key tree ----

  #place(property: ConfigProperty<P>): void {
    const [moduleSeg, groupSeg, nameSeg, keySeg] = property.path;
    const empty = property.value.kind === 'empty';
    if (moduleSeg === undefined) {
      if (!empty) this.problems.add('notBlock', pathOf([]), property.at, { got: gotOf(property.value) });
      return;
    }
    const modulePath = pathOf([moduleSeg]);
    const module = MODULES.get(uniform(moduleSeg.raw));
    if (module === undefined) {
      if (OTHER_MODULES.some((m) => uniform(m) === uniform(moduleSeg.raw))) {
        this.warnings.add('otherModule', modulePath, moduleSeg.at);
      } else {
        this.problems.add('unknownKey', modulePath, moduleSeg.at, { hint: hintFor(moduleSeg.raw, MODULE_KEYS) });
      }
      return;
    }
    if (groupSeg === undefined) return this.#mustBeBlock(property, modulePath);
    const groupPath = joinPath(modulePath, groupSeg);
    const groupName = uniform(groupSeg.raw);
    if (groupName !== 'instances' && groupName !== 'backends' && groupName !== 'configs') {
      if ([uniform(module.aspectOrder), 'metrics', 'tags'].includes(groupName)) {
        this.warnings.add('springOnly', groupPath, groupSeg.at);
      } else {
        this.problems.add('unknownKey', groupPath, groupSeg.at, { hint: hintFor(groupSeg.raw, ['instances', 'configs', 'backends', module.aspectOrder, 'tags']) });
      }
      return;
    }
    if (nameSeg === undefined) return this.#mustBeBlock(property, groupPath);
    const group = groupName === 'configs' ? 'configs' : 'instances';
    const pending = this.#pendingBlock(module, group, groupSeg, nameSeg, property);
    if (pending === undefined) return;
    if (keySeg === undefined) return this.#mustBeBlock(property, pending.block.path);
    this.#placeProperty(pending, property, keySeg, property.path.length > 4);
  }

  #mustBeBlock(property: ConfigProperty<P>, path: string): void {
    if (property.value.kind !== 'empty') this.problems.add('notBlock', path, property.at, { got: gotOf(property.value) });
  }

  #pendingBlock(module: ModuleInfo, group: Block<P>['group'], groupSeg: KeySegment<P>, nameSeg: KeySegment<P>, property: ConfigProperty<P>): PendingBlock<P> | undefined {
    const key = `${module.name}\u0000${group}\u0000${nameSeg.raw}`;
    const layer = property.layer ?? 0;
    const existing = this.#byKey.get(key);
    if (existing !== undefined) {
      if (existing.groupKey !== uniform(groupSeg.raw)) {
        this.problems.add('definedTwice', pathOf([property.path[0]!, groupSeg, nameSeg]), nameSeg.at);
        return undefined;
      }
      if (layer > existing.atLayer) {
        existing.block.at = nameSeg.at; // squiggle the overlay's own mention of the block
        existing.atLayer = layer;
      }
      existing.block.layers.add(layer);
      return existing;
    }
    const block: Block<P> = {
      module,
      group,
      name: nameSeg.raw,
      // As written, so a problem names the keys a person typed.
      path: pathOf([property.path[0]!, groupSeg, nameSeg]),
      at: nameSeg.at,
      props: new Map(),
      layers: new Set([layer]),
    };
    const pending: PendingBlock<P> = { block, groupKey: uniform(groupSeg.raw), written: new Map(), atLayer: layer };
    this.#byKey.set(key, pending);
    this.blocks.push(block);
    return pending;
  }

  #placeProperty(pending: PendingBlock<P>, property: ConfigProperty<P>, keySeg: KeySegment<P>, deeper: boolean): void {
    const { block } = pending;
    const keyPath = joinPath(block.path, keySeg);
    const basePath = joinPath(block.path, keySeg.raw);
    if (keySeg.raw === '<<') return this.problems.add('mergeKey', keyPath, keySeg.at);
    const key = block.module.keys.get(uniform(keySeg.raw));
    if (key === undefined) {
      return this.problems.add('unknownKey', keyPath, keySeg.at, { hint: hintFor(keySeg.raw, [...block.module.keys.values()].map((k) => k.name)) });
    }
    if (key.role === 'rejected') this.problems.add('notSupported', keyPath, property.at, { note: key.note ?? '' });
    if (key.role === 'renamed') return this.problems.add('renamed', keyPath, keySeg.at, { to: key.note ?? '' });
    if (key.role === 'ignored') this.warnings.add('noEffect', basePath, property.at, { note: key.note ?? '' });
    if (deeper) return this.problems.add('notSingle', keyPath, keySeg.at, { got: 'a block of keys' });
    const isList = key.type === 'classes';
    if (keySeg.index !== undefined && !isList) return this.problems.add('notSingle', keyPath, keySeg.at, { got: 'a list item' });

    const name = uniform(key.name);
    const layer = property.layer ?? 0;
    const existing = pending.written.get(name);
    if (existing !== undefined && existing.layer === layer) {
      const indexedBoth = keySeg.index !== undefined && existing.indexed !== undefined && !existing.indexed.has(keySeg.index);
      if (indexedBoth) {
        existing.indexed!.set(keySeg.index!, property);
        return;
      }
      // An explicit key overrides what a YAML merge key brought in; two explicit ones are a mistake.
      if (property.merged && !existing.property.merged) return;
      if (!(existing.property.merged && !property.merged)) {
        return this.problems.add('setTwice', keyPath, property.at, existing.path === keyPath ? {} : { other: existing.path });
      }
    } else if (existing !== undefined && existing.layer > layer) {
      return;
    }
    pending.written.set(name, {
      property,
      key,
      path: keySeg.index === undefined ? keyPath : basePath,
      layer,
      ...(keySeg.index !== undefined ? { indexed: new Map([[keySeg.index, property]]) } : {}),
    });
  }

  // ---- step 2: values, as Spring binds them ----

  #bind(pending: PendingBlock<P>): void {
    for (const [name, written] of pending.written) {
      const prop = this.#bindOne(pending.block, written);
      if (prop !== undefined) pending.block.props.set(name, prop);
    }
  }

  #bindOne(block: Block<P>, written: Written<P>): Prop<P> | undefined {
    const { key, path, property } = written;
    const value = written.indexed ? indexedList(written.indexed) : property.value;
    const text = textOf(value);
    const result = bindAs(key, value, path);
    const prop = (v: Maybe<BoundValue<P>>): Prop<P> => ({ key, path, at: property.at, value: v, text });
    if (result.kind === 'unset') return undefined;
    if (result.kind === 'placeholder') {
      if (this.options.mode === 'runtime') this.problems.add('placeholder', path, property.at, { value: result.text });
      return prop(UNKNOWN);
    }
    if (result.kind === 'problem') {
      const code = key.name === 'base-config' ? 'notName' : result.code;
      this.problems.add(code, path, property.at, { ...result.data, module: block.module.name, got: result.data['got'] ?? text });
      return prop(UNKNOWN);
    }
    if (typeof result.value === 'number' && key.check) {
      const broken = key.check(result.value);
      if (broken !== undefined) {
        this.problems.add('outOfRange', path, property.at, { value: text, range: broken });
        return prop(UNKNOWN);
      }
    }
    return prop(result.value);
  }

  // ---- base-config chains ----

  /** The block and what it inherits, as the module's starter resolves it. */
  chainOf(block: Block<P>): Chain<P> {
    const cached = this.#chains.get(block);
    if (cached) return cached;
    const blocks = [block];
    let complete = !this.options.partial;
    let current = block;
    for (;;) {
      const base = current.props.get('baseconfig');
      let next: Block<P> | undefined;
      if (base !== undefined) {
        if (!isKnown(base.value)) {
          complete = false;
          break;
        }
        next = this.block(block.module.name, 'configs', String(base.value));
        if (next === undefined) {
          // In a linted file the config may come from another file, unless this one defines the module's configs.
          if (this.options.mode === 'runtime' || (!this.options.partial && this.hasConfigs(block.module.name))) {
            this.problems.add('missingBase', base.path, base.at, { name: String(base.value), module: block.module.name });
          }
          complete = false;
          break;
        }
      } else {
        next = this.#implicitBase(current);
      }
      if (next === undefined) break;
      if (blocks.includes(next)) {
        this.problems.add('baseLoop', base?.path ?? current.path, base?.at ?? current.at, { name: next.name });
        break;
      }
      blocks.push(next);
      current = next;
    }
    const chain = { blocks, complete };
    this.#chains.set(block, chain);
    return chain;
  }

  /**
   * Without a base-config: retry and time limiter take `configs.default` (except a block named
   * default); the circuit breaker takes the config of its own name, then `configs.default`, and a
   * config inherits nothing (CommonCircuitBreakerConfigurationProperties.createDirectConfig).
   */
  #implicitBase(block: Block<P>): Block<P> | undefined {
    const module = block.module.name;
    if (module === 'circuitbreaker') {
      if (block.group === 'configs') return undefined;
      return this.block(module, 'configs', block.name) ?? this.block(module, 'configs', 'default');
    }
    return block.name === 'default' ? undefined : this.block(module, 'configs', 'default');
  }
}

function bindAs<P>(key: KeyInfo, value: PropertyValue<P>, path: string): BindResult<BoundValue<P>> {
  const type = key.type;
  if (typeof type === 'object') return bindEnum(value, type.oneOf);
  switch (type) {
    case 'duration':
      return bindDuration(value);
    case 'boolean':
      return bindBoolean(value);
    case 'integer':
      return bindInteger(value);
    case 'double':
      return bindDouble(value);
    case 'text':
    case 'class':
      return bindText(value);
    case 'classes': {
      const list = bindClassList(value);
      if (list.kind !== 'value') return list;
      const listed = value.kind === 'list';
      return { kind: 'value', value: list.value.map((item, i) => ({ ...item, path: listed ? `${path}[${i}]` : path })) };
    }
  }
}

/** Items written key by key (`x[0]`, `x[1]`), in index order. */
function indexedList<P>(indexed: Map<number, ConfigProperty<P>>): PropertyValue<P> {
  const first = [...indexed.values()][0]!;
  const items = [...indexed.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, p]) => ({ value: p.value.kind === 'scalar' ? p.value.value : null, at: p.at }));
  return { kind: 'list', items, at: first.at };
}

function textOf(value: PropertyValue<unknown>): string {
  if (value.kind === 'scalar') return value.text ?? String(value.value);
  if (value.kind === 'list') return value.items.map((i) => String(i.value)).join(', ');
  if (value.kind === 'other') return value.description;
  return '';
}

function gotOf(value: PropertyValue<unknown>): string {
  if (value.kind === 'scalar') return describe(value.value);
  if (value.kind === 'list') return 'a list';
  if (value.kind === 'other') return value.description;
  return 'nothing';
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** `did you mean max-attempts?`, or the known keys when nothing is close. */
export function hintFor(written: string, known: readonly string[]): string {
  const target = uniform(written);
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = distance(target, uniform(candidate));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best === undefined ? `known keys: ${known.join(', ')}` : `did you mean ${best}?`;
}

export function isNear(written: string, known: readonly string[], within = 2): boolean {
  return known.some((k) => distance(uniform(written), uniform(k)) <= within);
}
