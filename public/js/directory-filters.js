// Directory search and filters: leave empty fields out of the query string, so result URLs stay
// short and shareable (/?agent=x rather than /?q=&category=&agent=x...). The forms work without this.
for (const form of [document.getElementById('search'), document.getElementById('filters')]) {
  if (!form) continue;
  form.addEventListener('submit', () => {
    for (const field of form.querySelectorAll('input[name], select[name]')) {
      const isDefaultSort = field.name === 'sort' && field.value === 'recent';
      if (field.value.trim() === '' || isDefaultSort) field.disabled = true;
    }
    // Re-enable after the navigation starts, so Back shows the form as it was.
    setTimeout(() => {
      for (const field of form.querySelectorAll('[disabled]')) field.disabled = false;
    }, 0);
  });
}
