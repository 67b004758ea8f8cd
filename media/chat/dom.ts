/** Small DOM helpers for the chat webview: elements are built, never parsed from strings. */

type Child = Node | string | undefined | null | false;

export interface ElementProps {
  className?: string;
  text?: string;
  title?: string;
  attrs?: Record<string, string>;
  onClick?: (event: MouseEvent) => void;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: ElementProps = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.className) element.className = props.className;
  if (props.text !== undefined) element.textContent = props.text;
  if (props.title) element.title = props.title;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    element.setAttribute(name, value);
  }
  const onClick = props.onClick;
  if (onClick) element.addEventListener('click', (event) => onClick(event as MouseEvent));
  for (const child of children) {
    if (child !== undefined && child !== null && child !== false) {
      element.append(child);
    }
  }
  return element;
}

/** A codicon (decorative: screen readers use the button's label). */
export function icon(name: string, extraClass = ''): HTMLSpanElement {
  return h('span', { className: `codicon codicon-${name}${extraClass ? ` ${extraClass}` : ''}`, attrs: { 'aria-hidden': 'true' } });
}

export function iconButton(iconName: string, label: string, onClick: (event: MouseEvent) => void, className = ''): HTMLButtonElement {
  return h(
    'button',
    { className: `icon-button ${className}`.trim(), title: label, attrs: { type: 'button', 'aria-label': label }, onClick },
    icon(iconName),
  );
}

export function textButton(iconName: string, label: string, onClick: (event: MouseEvent) => void, className = ''): HTMLButtonElement {
  return h(
    'button',
    { className: `text-button ${className}`.trim(), attrs: { type: 'button' }, onClick },
    icon(iconName),
    h('span', { text: label }),
  );
}
