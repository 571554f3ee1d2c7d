/// <reference lib="dom" />

/**
 * The thread's posts in Compose: added, removed and moved here (without the script, "Add to thread" sends
 * the form back with one more). Each post is numbered from 2, the post itself being the first.
 */
export function createThread(list: HTMLOListElement, add: HTMLButtonElement, changed: () => void) {
  const items = () => [...list.querySelectorAll<HTMLLIElement>('.thread-item')]

  const renumber = () => {
    for (const [i, item] of items().entries()) {
      const name = item.querySelector('.item-name')
      if (name) name.textContent = `Thread post ${i + 2}`
      const tools = item.querySelector<HTMLElement>('.item-tools')
      if (tools) tools.hidden = false
      for (const b of item.querySelectorAll<HTMLButtonElement>('[data-move], [data-remove]'))
        b.setAttribute('aria-label', `${b.textContent} thread post ${i + 2}`)
    }
  }

  list.addEventListener('click', (event) => {
    const target = event.target as HTMLElement
    const button = target.closest('button')
    const item = button?.closest<HTMLLIElement>('.thread-item')
    if (!button || !item) return
    if (button.hasAttribute('data-remove')) {
      if (items().length > 1) item.remove()
      else for (const field of item.querySelectorAll('textarea')) field.value = ''
    } else {
      const step = Number(button.dataset.move)
      const sibling = step < 0 ? item.previousElementSibling : item.nextElementSibling
      if (sibling) {
        if (step < 0) sibling.before(item)
        else sibling.after(item)
        button.focus()
      }
    }
    renumber()
    changed()
  })

  add.addEventListener('click', (event) => {
    event.preventDefault()
    const last = items().at(-1)
    if (!last) return
    const copy = last.cloneNode(true) as HTMLLIElement
    for (const field of copy.querySelectorAll('textarea')) field.value = ''
    last.after(copy)
    renumber()
    copy.querySelector('textarea')?.focus()
  })

  renumber()
}
