/**
 * AI Integration's copy buttons: each `data-copy` button copies the text of the element it names (an
 * input's value, or the element's text). The page works without it; the text can be selected by hand.
 */
for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
  button.addEventListener('click', async () => {
    const target = document.getElementById(button.dataset.copy ?? '')
    if (!target) return
    const text = target instanceof HTMLInputElement ? target.value : (target.textContent ?? '')
    await navigator.clipboard.writeText(text)
    button.textContent = 'Copied'
  })
}
