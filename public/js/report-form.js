// The contribution form's merchant search, as you type. External file: the CSP allows no inline
// script. Without it, the Find button posts the whole form back and the server answers with the
// matches, every answer kept. With it, the search asks the public API
// (GET /api/v1/merchants?q=…&view=compact) and fills the merchant list in place: nothing else
// on the page changes, a single match is chosen, and the status line says what was found.
// It also refuses, before sending, screenshots that the server would refuse for their size.
(() => {
  const form = document.querySelector('form[data-report-form]');
  const box = form?.querySelector('[data-merchant-search]');
  const choice = form?.querySelector('[data-merchant-choice]');
  const find = form?.querySelector('[data-merchant-find]');
  const status = document.getElementById('merchant-search-status');
  if (!form || !box || !choice || !status || !window.fetch || !window.AbortController) return;

  const WAIT_MS = 350;
  let timer = 0;
  let controller = null;
  let shown = box.value.trim();

  const quote = (q) => `“${q}”`;
  const label = (m) => `${m.name} (${m.website})`;

  /** The list: the placeholder, the chosen merchant if the results lack it, then the results. */
  function fill(merchants) {
    const chosen = choice.value;
    const chosenOption = chosen ? choice.selectedOptions[0] : null;
    const keep = chosenOption && !merchants.some((m) => m.id === chosen) ? chosenOption.cloneNode(true) : null;
    choice.replaceChildren(new Option(merchants.length || keep ? 'Choose a merchant' : 'Search above, then choose', ''));
    if (keep) choice.add(keep);
    for (const m of merchants) choice.add(new Option(label(m), m.id));
    choice.value = chosen && (keep || merchants.some((m) => m.id === chosen)) ? chosen : '';
  }

  async function search(q, { moveFocus = false } = {}) {
    window.clearTimeout(timer);
    controller?.abort();
    shown = q;
    if (!q) {
      status.textContent = '';
      return;
    }
    controller = new AbortController();
    status.textContent = `Searching for ${quote(q)}…`;
    try {
      const response = await fetch(`/api/v1/merchants?q=${encodeURIComponent(q)}&view=compact&sort=name`, {
        signal: controller.signal,
        credentials: 'omit',
        headers: { Accept: 'application/json' },
      });
      if (response.status === 429) {
        status.textContent = 'Too many searches in a short time: wait a moment, then press Find.';
        return;
      }
      if (!response.ok) throw new Error(`status ${response.status}`);
      const body = await response.json();
      const merchants = body.data
        .map((m) => ({ id: m.id, name: m.name, website: m.website }))
        .sort((a, b) => a.name.localeCompare(b.name));
      fill(merchants);
      if (merchants.length === 1) {
        choice.value = merchants[0].id;
        status.textContent = `One merchant matches ${quote(q)}: ${merchants[0].name} is chosen.`;
      } else if (merchants.length === 0) {
        status.textContent = `No merchant matches ${quote(q)}. Check the spelling, or try part of the name or the website.`;
      } else {
        status.textContent =
          body.total > merchants.length
            ? `${body.total} merchants match ${quote(q)}: the first ${merchants.length} are listed. Type more of the name to see fewer.`
            : `${body.total} merchants match ${quote(q)}: choose one from the list.`;
      }
      if (moveFocus) (merchants.length ? choice : box).focus();
    } catch (error) {
      if (error.name === 'AbortError') return;
      status.textContent = 'The search did not answer. Press Find to try again.';
    }
  }

  box.addEventListener('input', () => {
    const q = box.value.trim();
    window.clearTimeout(timer);
    if (q === shown) return;
    timer = window.setTimeout(() => search(q), q.length < 2 ? WAIT_MS * 2 : WAIT_MS);
  });
  // Enter in the search box, or the Find button: search now, without sending the form.
  box.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.isComposing) return;
    event.preventDefault();
    void search(box.value.trim(), { moveFocus: true });
  });
  find?.addEventListener('click', (event) => {
    event.preventDefault();
    void search(box.value.trim(), { moveFocus: true });
  });

  // Screenshots the server would refuse for their size or number: said at once, not after sending.
  const files = form.querySelector('input[type=file][name=screenshots]');
  const MAX_BYTES = 5 * 1024 * 1024;
  if (files) {
    const note = document.createElement('p');
    note.className = 'error field-error';
    note.id = 'screenshots-check';
    note.setAttribute('role', 'alert');
    note.hidden = true;
    files.after(note);
    files.addEventListener('change', () => {
      const kept = form.querySelectorAll('input[type=checkbox][name^="keep_"]:checked').length;
      const max = 3 - kept;
      const chosen = [...files.files];
      const big = chosen.filter((f) => f.size > MAX_BYTES).map((f) => `“${f.name}”`);
      let problem = '';
      if (chosen.length > max) problem = `Attach at most 3 screenshots${kept ? ` (${kept} already attached)` : ''}: choose again.`;
      else if (big.length) problem = `${big.join(', ')} ${big.length === 1 ? 'is' : 'are'} larger than 5 MB: choose a smaller image.`;
      note.textContent = problem;
      note.hidden = !problem;
      if (problem) {
        files.value = '';
        files.setAttribute('aria-invalid', 'true');
        files.setAttribute('aria-describedby', note.id);
      } else if (!document.getElementById('screenshots-error')) {
        files.removeAttribute('aria-invalid');
        files.removeAttribute('aria-describedby');
      }
    });
  }
})();
