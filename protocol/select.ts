// Picks what the generator emits: the allowlisted domains in full, plus the closure of the
// types they reference through `$ref` in other domains (only those types, not whole domains).
// Also decides which commands/events go into CommandMap/EventMap: everything in an allowlisted
// domain except deprecated ones, unless they are on the keep-list. Pure: no I/O.
import type { Command, Documented, Domain, Event, Property, Protocol, TypeDef, TypeExpr } from './schema.ts';

export interface SelectOptions {
  /** Domains emitted in full. Unknown names are an error. */
  readonly domains: readonly string[];
  /** Deprecated `Domain.name` commands/events that stay in the maps. Unknown names are an error. */
  readonly keepDeprecated: readonly string[];
}

export interface SelectedDomain extends Documented {
  readonly domain: string;
  /** False for a domain that is only here because an allowlisted domain references its types. */
  readonly allowlisted: boolean;
  readonly types: readonly TypeDef[];
  readonly commands: readonly Command[];
  readonly events: readonly Event[];
}

export interface Model {
  /** Selected domains in source order; types, commands and events in source order too. */
  readonly domains: readonly SelectedDomain[];
  /** `Domain.command` names that go into CommandMap (and meta COMMANDS), in source order. */
  readonly commands: readonly string[];
  /** `Domain.event` names that go into EventMap (and meta EVENTS), in source order. */
  readonly events: readonly string[];
  /** The deprecated names among `commands` and `events` (the keep-list, in source order). */
  readonly keptDeprecated: readonly string[];
}

/** `Type` or `Domain.Type`, resolved against the domain the reference appears in. */
export function qualifyRef(ref: string, fromDomain: string): string {
  return ref.includes('.') ? ref : `${fromDomain}.${ref}`;
}

/** Every `$ref` inside a type expression (items, inline properties), in order. */
export function refsOf(expr: TypeExpr): string[] {
  const refs: string[] = [];
  const walk = (e: TypeExpr): void => {
    if (e.$ref !== undefined) refs.push(e.$ref);
    if (e.items !== undefined) walk(e.items);
    for (const p of e.properties ?? []) walk(p);
  };
  walk(expr);
  return refs;
}

function domainRefs(domain: Domain): string[] {
  const exprs: TypeExpr[] = [...(domain.types ?? [])];
  const fields = (list: readonly Property[] | undefined): void => {
    exprs.push(...(list ?? []));
  };
  for (const c of domain.commands ?? []) {
    fields(c.parameters);
    fields(c.returns);
  }
  for (const e of domain.events ?? []) fields(e.parameters);
  return exprs.flatMap((e) => refsOf(e).map((r) => qualifyRef(r, domain.domain)));
}

function isDeprecated(domain: Domain, item: Documented): boolean {
  return item.deprecated === true || domain.deprecated === true;
}

function docFlags(d: Documented): Documented {
  return {
    ...(d.description !== undefined ? { description: d.description } : {}),
    ...(d.experimental !== undefined ? { experimental: d.experimental } : {}),
    ...(d.deprecated !== undefined ? { deprecated: d.deprecated } : {}),
  };
}

export function select(protocol: Protocol, options: SelectOptions): Model {
  const byName = new Map<string, Domain>();
  for (const d of protocol.domains) byName.set(d.domain, d);
  const allow = new Set(options.domains);
  for (const name of allow) {
    if (!byName.has(name)) throw new Error(`allowlisted domain ${name} is not in the protocol`);
  }

  const typeIndex = new Map<string, TypeDef>();
  for (const d of protocol.domains) {
    for (const t of d.types ?? []) typeIndex.set(`${d.domain}.${t.id}`, t);
  }

  // Closure: qualified type names needed from non-allowlisted domains.
  const needed = new Set<string>();
  const queue: Array<{ ref: string; from: string }> = [];
  for (const d of protocol.domains) {
    if (allow.has(d.domain)) { for (const ref of domainRefs(d)) queue.push({ ref, from: d.domain }); }
  }
  while (queue.length > 0) {
    const { ref, from } = queue.shift()!;
    const type = typeIndex.get(ref);
    if (type === undefined) throw new Error(`unresolved $ref ${ref} (referenced from ${from})`);
    const domain = ref.slice(0, ref.indexOf('.'));
    if (allow.has(domain) || needed.has(ref)) continue;
    needed.add(ref);
    for (const r of refsOf(type)) queue.push({ ref: qualifyRef(r, domain), from: ref });
  }

  const keep = new Set(options.keepDeprecated);
  const found = new Set<string>();
  const domains: SelectedDomain[] = [];
  const commands: string[] = [];
  const events: string[] = [];
  const keptDeprecated: string[] = [];
  for (const d of protocol.domains) {
    if (allow.has(d.domain)) {
      const pick = (item: Command | Event, out: string[]): void => {
        const name = `${d.domain}.${item.name}`;
        if (keep.has(name)) found.add(name);
        if (!isDeprecated(d, item)) out.push(name);
        else if (keep.has(name)) {
          out.push(name);
          keptDeprecated.push(name);
        }
      };
      for (const c of d.commands ?? []) pick(c, commands);
      for (const e of d.events ?? []) pick(e, events);
      domains.push({
        domain: d.domain,
        ...docFlags(d),
        allowlisted: true,
        types: d.types ?? [],
        commands: d.commands ?? [],
        events: d.events ?? [],
      });
    } else {
      const types = (d.types ?? []).filter((t) => needed.has(`${d.domain}.${t.id}`));
      if (types.length > 0) {
        domains.push({ domain: d.domain, ...docFlags(d), allowlisted: false, types, commands: [], events: [] });
      }
    }
  }
  const missing = options.keepDeprecated.filter((name) => !found.has(name));
  if (missing.length > 0) {
    throw new Error(`keep-list entries not found in allowlisted domains: ${missing.join(', ')}`);
  }
  return { domains, commands, events, keptDeprecated };
}
