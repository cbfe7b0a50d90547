from django import forms

from media.models import Scene


class VideoImportForm(forms.Form):
    scene = forms.ModelChoiceField(queryset=Scene.objects.all())
    file = forms.FileField(
        help_text="MP4/MOV, Matroska/WebM or AVI; what it is is decided by "
        "probing it, not by its name"
    )
    title = forms.CharField(max_length=255, required=False, help_text="Defaults to the file name")


class RenderBatchForm(forms.Form):
    jobs = forms.FileField(
        help_text='JSON list of jobs: {"subject", "video", "step": [start, cutoff, outcome, end], '
        '"previous", "next", "seed"}, times in microseconds'
    )
    conditions = forms.MultipleChoiceField(
        choices=[], widget=forms.CheckboxSelectMultiple, initial=["official"]
    )
    profiles = forms.MultipleChoiceField(
        choices=[], widget=forms.CheckboxSelectMultiple, initial=["clip"]
    )
    label = forms.CharField(max_length=200, required=False)

    def __init__(self, *args, **kwargs):
        from media.renders import PROFILES
        from media.windows import Condition

        super().__init__(*args, **kwargs)
        self.fields["conditions"].choices = [(c.value, c.value) for c in Condition]
        self.fields["profiles"].choices = [(p, p) for p in PROFILES]

    def clean_jobs(self):
        import json

        from media.batches import jobs_from_json

        upload = self.cleaned_data["jobs"]
        try:
            return jobs_from_json(json.loads(upload.read().decode("utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
            raise forms.ValidationError(f"cannot read the jobs: {exc}") from None
